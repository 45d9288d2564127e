import test from "ava";
import { parseQueryTime } from "../../core/recall/time/parse-query-time.js";
import { applyTimeBoost, timeMatch } from "../../core/recall/time/time-boost.js";

// Saturday, 5 December 2026, 10:00 UTC.
const REF = new Date("2026-12-05T10:00:00Z");
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
/** A day (midnight UTC) or, written with its time, an instant. */
const at = (iso: string) => (iso.includes("T") ? new Date(`${iso}Z`) : day(iso));

const cases: [string, string, string, string][] = [
  // query, expression, from, to (UTC days, [from, to))
  ["Was haben wir gestern besprochen?", "gestern", "2026-12-04", "2026-12-05"],
  ["Was hat Anna vorgestern gesagt?", "vorgestern", "2026-12-03", "2026-12-04"],
  ["Was hat Anna letzte Woche gesagt?", "letzte Woche", "2026-11-23", "2026-11-30"],
  ["Was hat Anna im März 2026 gesagt?", "im März 2026", "2026-03-01", "2026-04-01"],
  ["Was hat Anna im März gesagt?", "im März", "2026-03-01", "2026-04-01"],
  ["Was war letzten Dienstag?", "letzten Dienstag", "2026-12-01", "2026-12-02"],
  ["Was war vor drei Tagen los?", "vor drei Tagen", "2026-12-02", "2026-12-03"],
  ["Was haben wir letzten Monat beschlossen?", "letzten Monat", "2026-11-01", "2026-12-01"],
  ["Was gilt diese Woche?", "diese Woche", "2026-11-30", "2026-12-07"],
  ["Was war am 3. März?", "3. März", "2026-03-03", "2026-03-04"],
  [
    "Treffen zwischen dem 1. März und dem 5. März",
    "zwischen dem 1. März und dem 5. März",
    "2026-03-01",
    "2026-03-06",
  ],
  ["Was hat sich im Jahr 2025 geändert?", "im Jahr 2025", "2025-01-01", "2026-01-01"],
  ["what did we decide last week?", "last week", "2026-11-23", "2026-11-30"],
  ["what happened last Tuesday", "last Tuesday", "2026-12-01", "2026-12-02"],
  ["What did Anna say yesterday?", "yesterday", "2026-12-04", "2026-12-05"],
  ["notes from 3 days ago", "3 days ago", "2026-12-02", "2026-12-03"],
  ["the release in March 2026", "in March 2026", "2026-03-01", "2026-04-01"],
  ["what was said on March 3", "March 3", "2026-03-03", "2026-03-04"],
  ["between March 1 and March 5", "between March 1 and March 5", "2026-03-01", "2026-03-06"],
  ["what changed in 2025", "in 2025", "2025-01-01", "2026-01-01"],
  ["Protokoll vom 2026-10-14", "2026-10-14", "2026-10-14", "2026-10-15"],
  // Saturday: the weekend that has begun is this one; "last weekend" the one before.
  ["Was haben wir letztes Wochenende gemacht?", "letztes Wochenende", "2026-11-28", "2026-11-30"],
  ["what did we do over the weekend", "over the weekend", "2026-12-05", "2026-12-07"],
  ["Was hat Anna vor ein paar Tagen erzählt?", "vor ein paar Tagen", "2026-11-29", "2026-12-04"],
  ["what did Jonas say a few days ago", "a few days ago", "2026-11-29", "2026-12-04"],
  ["what did we decide the week before last", "the week before last", "2026-11-16", "2026-11-23"],
  ["Was war vorletzten Monat?", "vorletzten Monat", "2026-10-01", "2026-11-01"],
  ["where did we go last summer", "last summer", "2026-06-01", "2026-09-01"],
  ["Was haben wir letzten Winter gemacht?", "letzten Winter", "2025-12-01", "2026-03-01"],
  ["Urlaub im Sommer 2025", "im Sommer 2025", "2025-06-01", "2025-09-01"],
  ["what we planned in the fall of 2025", "in the fall of 2025", "2025-09-01", "2025-12-01"],
  // Quarters: German Quartal, Q-notation after a preposition or with a year, an English quarter with
  // its year; without a year the latest that has begun (REF is in the fourth).
  ["Umsatz im dritten Quartal", "im dritten Quartal", "2026-07-01", "2026-10-01"],
  ["Was war im 4. Quartal?", "im 4. Quartal", "2026-10-01", "2027-01-01"],
  ["Ziele im ersten Quartal 2025", "im ersten Quartal 2025", "2025-01-01", "2025-04-01"],
  ["what did we ship in Q3", "in Q3", "2026-07-01", "2026-10-01"],
  ["Q1 2025 results", "Q1 2025", "2025-01-01", "2025-04-01"],
  ["revenue in the third quarter of 2025", "in the third quarter of 2025", "2025-07-01", "2025-10-01"],
  // Ranges: two dates, two months or two years joined by bis/to/und; days of one month.
  ["vom 1. März bis 5. März", "vom 1. März bis 5. März", "2026-03-01", "2026-03-06"],
  ["Urlaub vom 1. bis 5. März", "1. bis 5. März", "2026-03-01", "2026-03-06"],
  ["the trip March 3 to 7, 2025", "March 3 to 7, 2025", "2025-03-03", "2025-03-08"],
  ["Was war von Januar bis März?", "von Januar bis März", "2026-01-01", "2026-04-01"],
  ["what happened between March and May", "between March and May", "2026-03-01", "2026-06-01"],
  ["Heizkosten von November bis Februar", "von November bis Februar", "2025-11-01", "2026-03-01"],
  ["Umsatz von 2020 bis 2022", "von 2020 bis 2022", "2020-01-01", "2023-01-01"],
  ["notes from March 1 to March 5", "from March 1 to March 5", "2026-03-01", "2026-03-06"],
  // Holidays: the latest that has begun (REF: 5 December 2026), or the year's.
  ["Was haben wir an Weihnachten gemacht?", "an Weihnachten", "2025-12-24", "2025-12-27"],
  ["what did we do at Easter", "at Easter", "2026-04-03", "2026-04-07"],
  ["Was war an Ostern 2025?", "an Ostern 2025", "2025-04-18", "2025-04-22"],
  ["Wie war Silvester?", "Silvester", "2025-12-31", "2026-01-01"],
  ["who came over on Thanksgiving", "on Thanksgiving", "2026-11-26", "2026-11-27"],
  ["Pläne zwischen Weihnachten und Neujahr", "zwischen Weihnachten und Neujahr", "2025-12-24", "2026-01-02"],
  // Calendar weeks (ISO): without a year the latest that has begun.
  ["Termine in KW 12", "in KW 12", "2026-03-16", "2026-03-23"],
  ["Was steht in der KW 3/25 an?", "in der KW 3/25", "2025-01-13", "2025-01-20"],
  ["Protokoll der 49. Kalenderwoche", "49. Kalenderwoche", "2026-11-30", "2026-12-07"],
  ["meetings in calendar week 50", "in calendar week 50", "2025-12-08", "2025-12-15"],
  // A weekday's part of the day, written as one word; an evening runs on into the night.
  ["Was hat Anna am Dienstagabend gesagt?", "am Dienstagabend", "2026-12-01", "2026-12-02T06:00:00"],
  ["Notizen vom Montagmorgen", "Montagmorgen", "2026-11-30", "2026-12-01"],
  ["Was war vorhin?", "vorhin", "2026-12-05", "2026-12-06"],
  // A few weeks (two to five back) or months (up to six back), half a year.
  ["Was hat Jonas vor ein paar Wochen erzählt?", "vor ein paar Wochen", "2026-10-31", "2026-11-28"],
  ["what Anna said a few weeks ago", "a few weeks ago", "2026-10-31", "2026-11-28"],
  ["Was haben wir vor einigen Monaten beschlossen?", "vor einigen Monaten", "2026-06-01", "2026-11-05"],
  // A part of a year: its first, middle or last third.
  ["what changed in early 2025", "in early 2025", "2025-01-01", "2025-05-01"],
  ["Was war Mitte 2024?", "Mitte 2024", "2024-05-01", "2024-09-01"],
  ["plans for late 2025", "late 2025", "2025-09-01", "2026-01-01"],
  ["the mid-2025 review", "mid-2025", "2025-05-01", "2025-09-01"],
  // The beginning or end of a month is the month (as "Anfang März"); genitive units.
  ["at the beginning of March", "at the beginning of March", "2026-03-01", "2026-04-01"],
  ["the offsite in mid-June", "mid-June", "2026-06-01", "2026-07-01"],
  ["Kosten des letzten Monats", "letzten Monats", "2026-11-01", "2026-12-01"],
  // A part of the current week or month is that week or month; of this or last year, its third
  // (as "Ende 2024", ADR 0750).
  ["Was war Anfang der Woche?", "Anfang der Woche", "2026-11-30", "2026-12-07"],
  ["what did Anna say earlier this week", "earlier this week", "2026-11-30", "2026-12-07"],
  [
    "what did we discuss at the beginning of the month",
    "at the beginning of the month",
    "2026-12-01",
    "2027-01-01",
  ],
  ["Was war Ende letzten Jahres?", "Ende letzten Jahres", "2025-09-01", "2026-01-01"],
  ["what happened late last year", "late last year", "2025-09-01", "2026-01-01"],
  ["Was haben wir Anfang des Jahres geplant?", "Anfang des Jahres", "2026-01-01", "2026-05-01"],
  // A week of a month: its nth seven days, or its last seven.
  ["Was war in der ersten Maiwoche?", "in der ersten Maiwoche", "2026-05-01", "2026-05-08"],
  ["Notizen aus der letzten Woche im November", "der letzten Woche im November", "2026-11-24", "2026-12-01"],
  [
    "what happened in the second week of March 2025",
    "in the second week of March 2025",
    "2025-03-08",
    "2025-03-15",
  ],
  // The week (day) before or after an anchor: before, a holiday's coming one once that week has begun.
  [
    "Was hat Anna in der Woche vor Weihnachten gesagt?",
    "in der Woche vor Weihnachten",
    "2025-12-17",
    "2025-12-24",
  ],
  ["what did we do the week after Easter", "the week after Easter", "2026-04-07", "2026-04-14"],
  ["Was war am Tag nach Silvester?", "am Tag nach Silvester", "2026-01-01", "2026-01-02"],
  ["notes from the day after Thanksgiving", "the day after Thanksgiving", "2026-11-27", "2026-11-28"],
  ["Was war in der Woche vor dem 3. März?", "in der Woche vor dem 3. März", "2026-02-24", "2026-03-03"],
  ["the days leading up to Christmas", "the days leading up to Christmas", "2025-12-17", "2025-12-24"],
];

for (const [query, text, from, to] of cases) {
  test(`"${query}" names [${from}, ${to})`, (t) => {
    const time = parseQueryTime(query, REF);
    t.is(time?.text, text);
    t.deepEqual(time?.from, at(from));
    t.deepEqual(time?.to, at(to));
  });
}

test("since / seit run from the anchor to the reference; before / vor up to it", (t) => {
  for (const query of ["what changed since June", "Was hat sich seit Juni geändert?"]) {
    const time = parseQueryTime(query, REF);
    t.deepEqual(time?.from, day("2026-06-01"), query);
    t.true((time?.to.getTime() ?? 0) > REF.getTime(), query);
  }
  const before = parseQueryTime("decisions before June 2026", REF);
  t.is(before?.text, "before June 2026");
  t.deepEqual(before?.to, day("2026-06-01"));
  t.deepEqual(before?.from, new Date(0));
});

test("bis / until include their anchor: up to its end", (t) => {
  const cases: [string, string, string][] = [
    ["Was muss bis Ende 2026 erledigt sein?", "bis Ende 2026", "2027-01-01"],
    ["Welche Regeln gelten bis März?", "bis März", "2026-04-01"],
    ["Was ist bis zum 3. März zu tun?", "bis zum 3. März", "2026-03-04"],
    ["what was open until yesterday", "until yesterday", "2026-12-05"],
    ["budget through 2025", "through 2025", "2026-01-01"],
  ];
  for (const [query, text, to] of cases) {
    const time = parseQueryTime(query, REF);
    t.is(time?.text, text, query);
    t.deepEqual(time?.from, new Date(0), query);
    t.deepEqual(time?.to, day(to), query);
  }
  // A holiday less than a month ahead is the one meant by "vor" / "bis"; "an" looks back.
  const december = new Date("2026-12-05T10:00:00Z");
  t.deepEqual(parseQueryTime("Was müssen wir vor Weihnachten erledigen?", december)?.to, day("2026-12-24"));
  t.deepEqual(parseQueryTime("bis Weihnachten", december)?.to, day("2026-12-27"));
  t.deepEqual(parseQueryTime("before Christmas", new Date("2027-02-05T10:00:00Z"))?.to, day("2026-12-24"));
  // The week before a holiday is this year's once it has begun.
  const week = parseQueryTime("in der Woche vor Weihnachten", new Date("2026-12-20T10:00:00Z"));
  t.deepEqual([week?.from, week?.to], [day("2026-12-17"), day("2026-12-24")]);
  // "vor" / "before" still end where the anchor begins.
  t.deepEqual(parseQueryTime("Was war vor März 2026?", REF)?.to, day("2026-03-01"));
});

test("a weekday's 'am Wochenende' / 'last weekend' is the one before; vague words look back two weeks", (t) => {
  const wednesday = new Date("2026-12-09T15:00:00Z");
  for (const query of ["Was war am Wochenende?", "what happened last weekend", "this past weekend"]) {
    t.deepEqual(parseQueryTime(query, wednesday)?.from, day("2026-12-05"), query);
    t.deepEqual(parseQueryTime(query, wednesday)?.to, day("2026-12-07"), query);
  }
  for (const query of ["What did I recently buy?", "Was hat Mira neulich gesagt?", "vor kurzem"]) {
    const time = parseQueryTime(query, REF);
    t.deepEqual(time?.from, day("2026-11-21"), query);
    t.true((time?.to.getTime() ?? 0) > REF.getTime(), query);
  }
  const lastDays = parseQueryTime("Was ist in den letzten Tagen passiert?", REF);
  t.is(lastDays?.text, "in den letzten Tagen");
  t.deepEqual(lastDays?.from, day("2026-11-28"));
  const night = parseQueryTime("What did we talk about last night?", REF);
  t.deepEqual(night?.from, day("2026-12-04"));
  t.deepEqual(night?.to, new Date("2026-12-05T06:00:00Z"));
  t.is(parseQueryTime("Was hat Anna gestern Abend gesagt?", REF)?.text, "gestern Abend");
});

test("a month without a year is the latest one that has begun; as_of moves the reference", (t) => {
  t.deepEqual(parseQueryTime("im Dezember", REF)?.from, day("2026-12-01"));
  t.deepEqual(parseQueryTime("in January", REF)?.from, day("2026-01-01"));
  const asOf = new Date("2026-02-10T08:00:00Z");
  t.deepEqual(parseQueryTime("im März", asOf)?.from, day("2025-03-01"));
  t.deepEqual(parseQueryTime("gestern", asOf)?.from, day("2026-02-09"));
});

test("queries without a time expression parse to nothing", (t) => {
  for (const query of [
    "Wie wirkt Covid-19?",
    "What may I do if I have symptoms?",
    "Wie lange ist die Inkubationszeit?",
    "Who won the 2019 final?",
    "Welche Symptome gibt es?",
    "How many days does the virus survive on surfaces?",
    "Mai Thai recipe",
    "Tom is going to march in the parade.",
    "Der Vertrag läuft drei Jahre",
    "Was brauche ich im Winter?",
    "Which plants flower in spring?",
    "What is the relationship between anal swabs and disease severity in 2019-nCOV?",
    "Welche Themen hatte die heute-show?",
    // A game's quarter, a car and a share are no calendar quarters.
    "Who scored in the fourth quarter?",
    "Was kostet ein Audi Q3?",
    "a quarter of the budget",
    // A holiday's name before another word is a modifier; a course's week no calendar week.
    "Christmas tree ideas",
    "Easter eggs recipe",
    // "zu" / "for" a holiday is a purpose, not a time.
    "Was wünscht sich Anna zu Weihnachten?",
    "a gift idea for Christmas",
    "looking forward to Christmas!",
    "week 12 of the course",
    // Counts and numbered steps are no ranges.
    "between 2000 and 3000 users",
    "Schritte 1. bis 3.",
    "I want to march from here to there",
    // An idiom and a course's week are no calendar parts.
    "At the end of the day, what matters is the customer",
    "the first week of the course",
    "Was steht in der ersten Woche an?",
  ]) {
    t.is(parseQueryTime(query, REF), undefined, query);
  }
});

test("timeMatch: 1 inside the interval, decaying with distance on the interval's own scale", (t) => {
  const yesterday = { from: day("2026-12-04"), to: day("2026-12-05") };
  t.is(timeMatch(new Date("2026-12-04T13:00:00Z"), yesterday), 1);
  const dayOff = timeMatch(new Date("2026-12-03T00:00:00Z"), yesterday);
  const weekOff = timeMatch(new Date("2026-11-27T00:00:00Z"), yesterday);
  t.true(dayOff > weekOff && weekOff > 0 && dayOff < 1);
  const march = { from: day("2026-03-01"), to: day("2026-04-01") };
  t.true(timeMatch(new Date("2026-04-03T00:00:00Z"), march) > 0.8, "two days after a month: still close");
});

test("applyTimeBoost: the memory inside the interval overtakes a slightly better one outside", (t) => {
  const at = (iso: string) => ({ validFrom: new Date(iso) });
  const candidates = [
    { id: "old", score: 0.6, chunk: at("2026-10-01T12:00:00Z") },
    { id: "yesterday", score: 0.5, chunk: at("2026-12-04T12:00:00Z") },
    { id: "unrelated", score: 0.1, chunk: at("2026-12-04T12:00:00Z") },
  ];
  const boosted = applyTimeBoost(candidates, { from: day("2026-12-04"), to: day("2026-12-05") }, 0.5);
  t.deepEqual(
    boosted.map((c) => c.id),
    ["yesterday", "old", "unrelated"],
  );
  t.is(boosted[0]?.score, 0.5);
  t.is(boosted[0]?.timeMatch, 1);
  t.is(boosted[0]?.timeFactor, 1);
  const old = boosted.find((c) => c.id === "old");
  t.true(old !== undefined && Math.abs(old.score - 0.6 * (old.timeFactor ?? 0)) < 1e-12);
  t.true((old?.timeFactor ?? 1) < 0.51 && (old?.timeFactor ?? 0) >= 0.5, "far off: 1 − strength");
});
