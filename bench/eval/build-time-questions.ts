/**
 * A small dev set of questions about time (issue 50 item 4): synthetic team conversations in German and
 * English, one tenant per language, each topic discussed by the same people on many days with different
 * outcomes, so only the question's time expression tells the right turn from its siblings.
 *
 *   npx tsx bench/eval/build-time-questions.ts [--out .tmp/time_questions] [--now 2026-12-05T10:00:00Z]
 *                                              [--older-turns 150]
 *   npm run eval -- --dataset .tmp/time_questions --no-peer [--via conversations]
 *
 * Besides the questions about a topic at a time, each language asks per time "What did we talk about
 * <time>?" / "Was haben wir <time> besprochen?" (category "topicless …"): every turn of the interval is
 * relevant (ADR 0610). `--older-turns N` adds N turns per topic on random days 15 days to two years
 * back: a workspace of months of conversation, where the right day's turn is one of hundreds on its
 * topic. The time channel needs the turns' times in the vector table too: measure that through
 * `--via conversations` (the entries path sets valid times in PostgreSQL after the writes).
 *
 * Every corpus row carries `valid_from` (ISO 8601): the eval's ingest sets the memory's valid time to it,
 * as the conversations route does from message times. Times are relative to `--now` (default: the
 * moment of building), and recall takes the request time as reference, so build and evaluate on the
 * same day. The relevant turns of a question are computed here, by this file's own calendar arithmetic
 * (UTC days, ISO weeks from Monday), independently of core/recall/time/.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: ".tmp/time_questions" },
    now: { type: "string" },
    // Older turns per topic on random days (a workspace of months of conversation: the right day's
    // turn is then one of hundreds on its topic, beyond the channels' depth).
    "older-turns": { type: "string", default: "0" },
  },
});
const olderTurns = Number(values["older-turns"]);
if (!Number.isInteger(olderTurns) || olderTurns < 0)
  throw new Error("--older-turns takes a whole number ≥ 0");
const now = values.now === undefined ? new Date() : new Date(values.now);
const DAY = 86_400_000;
const dayStart = (offset: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset));

interface Topic {
  readonly de: { readonly name: string; readonly outcomes: readonly string[] };
  readonly en: { readonly name: string; readonly outcomes: readonly string[] };
}

const TOPICS: readonly Topic[] = [
  {
    de: {
      name: "Release",
      outcomes: [
        "Der Release wird auf Freitag verschoben",
        "Der Release bleibt beim Montag",
        "Für den Release fehlen noch zwei Tests",
        "Der Release ist freigegeben",
        "Der Release wartet auf die Sicherheitsprüfung",
        "Beim Release nehmen wir die Version drei",
        "Der Release wird abgesagt",
        "Den Release kündigen wir im Newsletter an",
        "Der Release braucht ein neues Datum",
        "Der Release läuft ohne Probleme",
        "Nach dem Release sammeln wir Rückmeldungen",
      ],
    },
    en: {
      name: "release",
      outcomes: [
        "The release moves to Friday",
        "The release stays on Monday",
        "The release still lacks two tests",
        "The release is approved",
        "The release waits for the security review",
        "For the release we take version three",
        "The release is cancelled",
        "We announce the release in the newsletter",
        "The release needs a new date",
        "The release went without problems",
        "After the release we collect feedback",
      ],
    },
  },
  {
    de: {
      name: "Budget",
      outcomes: [
        "Das Budget wird um zehn Prozent gekürzt",
        "Das Budget reicht bis Jahresende",
        "Für das Budget brauchen wir eine Freigabe",
        "Das Budget steigt für Marketing",
        "Das Budget wird eingefroren",
        "Beim Budget fehlen noch die Reisekosten",
        "Das Budget ist genehmigt",
        "Das Budget wird neu verteilt",
        "Das Budget übernimmt die Zentrale",
        "Das Budget liegt unter Plan",
        "Für das Budget gibt es einen Nachtrag",
      ],
    },
    en: {
      name: "budget",
      outcomes: [
        "The budget is cut by ten percent",
        "The budget lasts until the end of the year",
        "The budget needs an approval",
        "The budget grows for marketing",
        "The budget is frozen",
        "The budget still lacks travel costs",
        "The budget is approved",
        "The budget is redistributed",
        "Headquarters covers the budget",
        "The budget is below plan",
        "There is a supplement to the budget",
      ],
    },
  },
  {
    de: {
      name: "Umzug des Büros",
      outcomes: [
        "Der Umzug des Büros ist für den Sommer geplant",
        "Beim Umzug des Büros helfen zwei Firmen",
        "Der Umzug des Büros wird verschoben",
        "Für den Umzug des Büros fehlt der Mietvertrag",
        "Der Umzug des Büros kostet mehr als gedacht",
        "Der Umzug des Büros ist abgeschlossen",
        "Den Umzug des Büros planen wir neu",
        "Der Umzug des Büros beginnt am Wochenende",
        "Beim Umzug des Büros bleiben die Server hier",
        "Der Umzug des Büros braucht neue Möbel",
        "Der Umzug des Büros wird abgesagt",
      ],
    },
    en: {
      name: "office move",
      outcomes: [
        "The office move is planned for summer",
        "Two companies help with the office move",
        "The office move is postponed",
        "The office move lacks the lease",
        "The office move costs more than expected",
        "The office move is finished",
        "We plan the office move again",
        "The office move starts at the weekend",
        "The servers stay here during the office move",
        "The office move needs new furniture",
        "The office move is cancelled",
      ],
    },
  },
  {
    de: {
      name: "Datenbankmigration",
      outcomes: [
        "Die Datenbankmigration läuft nachts",
        "Die Datenbankmigration braucht mehr Speicher",
        "Die Datenbankmigration ist gescheitert",
        "Die Datenbankmigration wird wiederholt",
        "Die Datenbankmigration ist fertig",
        "Für die Datenbankmigration gibt es ein Wartungsfenster",
        "Die Datenbankmigration hat Daten verloren",
        "Die Datenbankmigration testen wir zuerst",
        "Die Datenbankmigration übernimmt Jonas",
        "Die Datenbankmigration dauert zwei Stunden",
        "Die Datenbankmigration wird verschoben",
      ],
    },
    en: {
      name: "database migration",
      outcomes: [
        "The database migration runs at night",
        "The database migration needs more storage",
        "The database migration failed",
        "The database migration is repeated",
        "The database migration is done",
        "There is a maintenance window for the database migration",
        "The database migration lost data",
        "We test the database migration first",
        "Jonas takes over the database migration",
        "The database migration takes two hours",
        "The database migration is postponed",
      ],
    },
  },
  {
    de: {
      name: "Neueinstellungen",
      outcomes: [
        "Für die Neueinstellungen gibt es drei Kandidaten",
        "Die Neueinstellungen werden gestoppt",
        "Bei den Neueinstellungen fehlt ein Entwickler",
        "Die Neueinstellungen beginnen im Frühjahr",
        "Die Neueinstellungen sind abgeschlossen",
        "Für die Neueinstellungen brauchen wir eine Agentur",
        "Die Neueinstellungen kosten zu viel",
        "Die Neueinstellungen priorisieren wir neu",
        "Die Neueinstellungen übernimmt die Personalabteilung",
        "Bei den Neueinstellungen gibt es Absagen",
        "Die Neueinstellungen laufen gut",
      ],
    },
    en: {
      name: "hiring",
      outcomes: [
        "There are three candidates for hiring",
        "Hiring is stopped",
        "Hiring still lacks a developer",
        "Hiring starts in spring",
        "Hiring is complete",
        "For hiring we need an agency",
        "Hiring costs too much",
        "We reprioritise hiring",
        "HR takes over hiring",
        "Hiring got several rejections",
        "Hiring goes well",
      ],
    },
  },
  {
    de: {
      name: "Preiserhöhung",
      outcomes: [
        "Die Preiserhöhung kommt im Januar",
        "Die Preiserhöhung wird zurückgenommen",
        "Die Preiserhöhung beträgt fünf Prozent",
        "Die Preiserhöhung gilt nur für Neukunden",
        "Die Preiserhöhung ist beschlossen",
        "Die Preiserhöhung verärgert die Kunden",
        "Die Preiserhöhung prüfen wir noch",
        "Die Preiserhöhung wird angekündigt",
        "Die Preiserhöhung fällt kleiner aus",
        "Die Preiserhöhung verschieben wir",
        "Die Preiserhöhung ist umgesetzt",
      ],
    },
    en: {
      name: "price increase",
      outcomes: [
        "The price increase comes in January",
        "The price increase is withdrawn",
        "The price increase is five percent",
        "The price increase only applies to new customers",
        "The price increase is decided",
        "The price increase annoys customers",
        "We are still checking the price increase",
        "The price increase is announced",
        "The price increase is smaller",
        "We postpone the price increase",
        "The price increase is in place",
      ],
    },
  },
];

const SPEAKERS = { de: ["Anna", "Jonas", "Mira"], en: ["Anna", "Jonas", "Mira"] } as const;

interface Slot {
  readonly de: string;
  readonly en: string;
  /** When the slot's turns happen (ms), and the interval the expression names (ms, half-open). */
  readonly at: number;
  readonly interval: readonly [number, number];
}

const weekStart = (t: Date) => dayStart(-((t.getUTCDay() + 6) % 7)).getTime();
const monthStart = (y: number, m: number) => Date.UTC(y, m, 1);
const noon = (d: Date) => d.getTime() + 12 * 3_600_000;
const lastWeekday = (weekday: number) => {
  const back = (now.getUTCDay() - weekday + 7) % 7 || 7;
  return dayStart(-back);
};
const y = now.getUTCFullYear();
const m = now.getUTCMonth();
const MONTHS_DE = [
  "Januar",
  "Februar",
  "März",
  "April",
  "Mai",
  "Juni",
  "Juli",
  "August",
  "September",
  "Oktober",
  "November",
  "Dezember",
];
const MONTHS_EN = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
// A month five to six months back, named with its year.
const pastMonth = (m + 12 - 6) % 12;
const pastMonthYear = m >= 6 ? y : y - 1;
const tuesday = lastWeekday(2);

// The latest Christmas that has begun (24 to 26 December).
const christmasYear = now.getTime() >= Date.UTC(y, 11, 24) ? y : y - 1;
/** Monday 00:00 UTC of the ISO week holding t (ms). */
const isoMonday = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
};
// The ISO calendar week of 40 days back, by its number (the week holding its Thursday's year's 4 January is week 1).
const kwStart = isoMonday(now.getTime() - 40 * DAY);
const kwThursday = new Date(kwStart + 3 * DAY);
const kw = 1 + Math.round((kwStart - isoMonday(Date.UTC(kwThursday.getUTCFullYear(), 0, 4))) / (7 * DAY));
// The weekday five days back, named with its part of the day ("am Donnerstagabend").
const WEEKDAYS_DE = ["Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"];
const WEEKDAYS_EN = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const eveningDay = (now.getUTCDay() + 2) % 7;
// Days 3 to 5 of the month two months back.
const rangeMonth = (m + 12 - 2) % 12;
const rangeYear = m >= 2 ? y : y - 1;

// ADR 0750: the week before the latest Christmas whose week has begun; the first week of the month
// three months back.
const weekBeforeYear = now.getTime() >= Date.UTC(y, 11, 17) ? y : y - 1;
const firstWeekMonth = (m + 12 - 3) % 12;
const firstWeekYear = m >= 3 ? y : y - 1;

const SLOTS: readonly Slot[] = [
  {
    de: "gestern",
    en: "yesterday",
    at: noon(dayStart(-1)),
    interval: [dayStart(-1).getTime(), dayStart(0).getTime()],
  },
  {
    de: "vorgestern",
    en: "the day before yesterday",
    at: noon(dayStart(-2)),
    interval: [dayStart(-2).getTime(), dayStart(-1).getTime()],
  },
  {
    de: "letzten Dienstag",
    en: "last Tuesday",
    at: noon(tuesday),
    interval: [tuesday.getTime(), tuesday.getTime() + DAY],
  },
  {
    de: "vor zehn Tagen",
    en: "ten days ago",
    at: noon(dayStart(-10)),
    interval: [dayStart(-10).getTime(), dayStart(-9).getTime()],
  },
  {
    de: "letzte Woche",
    en: "last week",
    at: weekStart(now) - 4 * DAY + 9 * 3_600_000,
    interval: [weekStart(now) - 7 * DAY, weekStart(now)],
  },
  {
    de: "letzten Monat",
    en: "last month",
    at: monthStart(y, m - 1) + 20 * DAY,
    interval: [monthStart(y, m - 1), monthStart(y, m)],
  },
  {
    de: `im ${MONTHS_DE[pastMonth]} ${pastMonthYear}`,
    en: `in ${MONTHS_EN[pastMonth]} ${pastMonthYear}`,
    at: Date.UTC(pastMonthYear, pastMonth, 12, 15),
    interval: [Date.UTC(pastMonthYear, pastMonth, 1), Date.UTC(pastMonthYear, pastMonth + 1, 1)],
  },
  {
    de: "vor ein paar Tagen",
    en: "a few days ago",
    at: noon(dayStart(-4)),
    interval: [dayStart(-6).getTime(), dayStart(-1).getTime()],
  },
  {
    de: "letztes Wochenende",
    en: "last weekend",
    // Saturday of the previous ISO week; the weekend runs to its Monday 00:00.
    at: weekStart(now) - 2 * DAY + 14 * 3_600_000,
    interval: [weekStart(now) - 2 * DAY, weekStart(now)],
  },
  {
    de: "vorletzte Woche",
    en: "the week before last",
    at: weekStart(now) - 11 * DAY + 9 * 3_600_000,
    interval: [weekStart(now) - 14 * DAY, weekStart(now) - 7 * DAY],
  },
  // ADR 0720: holidays, calendar weeks, a weekday's evening, a few weeks ago, a range of days.
  {
    de: "an Weihnachten",
    en: "at Christmas",
    at: Date.UTC(christmasYear, 11, 25, 15),
    interval: [Date.UTC(christmasYear, 11, 24), Date.UTC(christmasYear, 11, 27)],
  },
  {
    de: `in KW ${kw}`,
    en: `in calendar week ${kw}`,
    at: kwStart + 2 * DAY + 10 * 3_600_000,
    interval: [kwStart, kwStart + 7 * DAY],
  },
  {
    de: `am ${WEEKDAYS_DE[eveningDay]}abend`,
    en: `on ${WEEKDAYS_EN[eveningDay]} evening`,
    at: dayStart(-5).getTime() + 19 * 3_600_000,
    interval: [dayStart(-5).getTime(), dayStart(-4).getTime()],
  },
  {
    de: "vor ein paar Wochen",
    en: "a few weeks ago",
    at: noon(dayStart(-21)),
    interval: [dayStart(-35).getTime(), dayStart(-7).getTime()],
  },
  {
    de: `vom 3. bis 5. ${MONTHS_DE[rangeMonth]}`,
    en: `from ${MONTHS_EN[rangeMonth]} 3 to 5`,
    at: Date.UTC(rangeYear, rangeMonth, 4, 11),
    interval: [Date.UTC(rangeYear, rangeMonth, 3), Date.UTC(rangeYear, rangeMonth, 6)],
  },
  // ADR 0750: the week before a holiday, a week of a month, a part of last year.
  {
    de: "in der Woche vor Weihnachten",
    en: "in the week before Christmas",
    at: Date.UTC(weekBeforeYear, 11, 20, 10),
    interval: [Date.UTC(weekBeforeYear, 11, 17), Date.UTC(weekBeforeYear, 11, 24)],
  },
  {
    de: `in der ersten Woche im ${MONTHS_DE[firstWeekMonth]}`,
    en: `in the first week of ${MONTHS_EN[firstWeekMonth]}`,
    at: Date.UTC(firstWeekYear, firstWeekMonth, 2, 14),
    interval: [Date.UTC(firstWeekYear, firstWeekMonth, 1), Date.UTC(firstWeekYear, firstWeekMonth, 8)],
  },
  {
    de: "Ende letzten Jahres",
    en: "late last year",
    at: Date.UTC(y - 1, 9, 20, 10),
    interval: [Date.UTC(y - 1, 8, 1), Date.UTC(y, 0, 1)],
  },
  {
    de: `im Jahr ${y - 2}`,
    en: `in ${y - 2}`,
    at: Date.UTC(y - 2, 6, 3, 10),
    interval: [Date.UTC(y - 2, 0, 1), Date.UTC(y - 1, 0, 1)],
  },
];
// Turns on other days: siblings no question asks for.
const EXTRA_AT = [-45, -75, -120, -300].map((d) => noon(dayStart(d)));
/** Deterministic (mulberry32): the same --older-turns builds the same set. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const nextRandom = random(50);
// Older turns: 15 days to two years back, at any hour (some fall into a question's interval and are
// then relevant to it, as the interval rule below decides).
const OLDER_AT = Array.from({ length: olderTurns }, () =>
  Math.floor(dayStart(-15).getTime() - nextRandom() * 715 * DAY),
);

const QUESTIONS = {
  de: (topic: string, when: string, speaker: string) => [
    `Was hat ${speaker} ${when} zum Thema ${topic} gesagt?`,
    `Was haben wir ${when} zu ${topic} beschlossen?`,
  ],
  en: (topic: string, when: string, speaker: string) => [
    `What did ${speaker} say about the ${topic} ${when}?`,
    `What did we decide on the ${topic} ${when}?`,
  ],
} as const;

/** Questions that name only the time (ADR 0610): every turn of that language in the interval is relevant. */
const TOPICLESS = {
  de: (when: string) => `Was haben wir ${when} besprochen?`,
  en: (when: string) => `What did we talk about ${when}?`,
} as const;

/**
 * Questions after the latest word on a topic, with no time expression ("knowledge update"): the
 * topic's most recent turn is the one relevant.
 */
const LATEST = {
  de: (topic: string) => [
    `Was ist der aktuelle Stand zum Thema ${topic}?`,
    `Was wurde zuletzt zu ${topic} gesagt?`,
  ],
  en: (topic: string) => [`What is the latest on the ${topic}?`, `What did we last say about the ${topic}?`],
} as const;

const corpus: Record<string, unknown>[] = [];
const queries: Record<string, unknown>[] = [];
for (const lang of ["de", "en"] as const) {
  const turnsOfLanguage: { id: string; at: number }[] = [];
  TOPICS.forEach((topic, t) => {
    const { name, outcomes } = topic[lang];
    const times = [...SLOTS.map((s) => s.at), ...EXTRA_AT, ...OLDER_AT];
    const docs = times.map((at, i) => {
      const speaker = SPEAKERS[lang][(t + i) % 3] ?? "Anna";
      const id = `time-${lang}-t${t}-d${i}`;
      corpus.push({
        id,
        title: "",
        text: `${speaker}: ${outcomes[i % outcomes.length]}.`,
        group: lang,
        valid_from: new Date(at).toISOString(),
      });
      turnsOfLanguage.push({ id, at });
      return { id, at, speaker };
    });
    const newest = docs.reduce((a, b) => (b.at > a.at ? b : a));
    LATEST[lang](name).forEach((text, v) => {
      queries.push({
        id: `time-${lang}-t${t}-latest-v${v}`,
        text,
        relevant_ids: [newest.id],
        group: lang,
        lang,
        category: "latest",
      });
    });
    SLOTS.forEach((slot, s) => {
      const relevant = docs.filter((d) => d.at >= slot.interval[0] && d.at < slot.interval[1]);
      const speaker = docs[s]?.speaker ?? "Anna";
      QUESTIONS[lang](name, slot[lang], speaker).forEach((text, v) => {
        queries.push({
          id: `time-${lang}-t${t}-s${s}-v${v}`,
          text,
          relevant_ids: relevant.map((d) => d.id),
          group: lang,
          lang,
          category: slot.en.replace(/\d+/gu, "N"),
        });
      });
    });
  });
  SLOTS.forEach((slot, s) => {
    queries.push({
      id: `time-${lang}-topicless-s${s}`,
      text: TOPICLESS[lang](slot[lang]),
      relevant_ids: turnsOfLanguage
        .filter((d) => d.at >= slot.interval[0] && d.at < slot.interval[1])
        .map((d) => d.id),
      group: lang,
      lang,
      category: `topicless ${slot.en.replace(/\d+/gu, "N")}`,
    });
  });
}

await mkdir(values.out, { recursive: true });
const lines = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
await writeFile(join(values.out, "corpus.jsonl"), lines(corpus));
await writeFile(join(values.out, "queries.jsonl"), lines(queries));
await writeFile(
  join(values.out, "meta.json"),
  `${JSON.stringify(
    {
      name: "time_questions",
      task: "questions about time over synthetic team conversations (German, English); valid_from per turn",
      reference_time: now.toISOString(),
      notes: "built by bench/eval/build-time-questions.ts; relative to reference_time, evaluate the same day",
    },
    null,
    2,
  )}\n`,
);
process.stderr.write(`${corpus.length} turns, ${queries.length} questions → ${values.out}\n`);
