import {
  agoSpan,
  DAY,
  dateSpan,
  holidaySpan,
  isoWeekSpan,
  lastNSpan,
  latestMonth,
  latestThreeMonths,
  latestWeekday,
  monthSpan,
  monthsSpan,
  type Span,
  threeMonths,
  unitSpan,
  utcDay,
  weekendSpan,
  weekOfMonth,
  yearSpan,
} from "./calendar-spans.js";
import {
  ENGLISH_HOLIDAY,
  GERMAN_HOLIDAY,
  HOLIDAY,
  HOLIDAY_NAMES,
  MONTH,
  MONTH_WEEK,
  MONTH_WEEKS,
  MONTHS,
  NUMBER,
  NUMBERS,
  QUARTERS,
  SEASON,
  SEASONS,
  UNIT,
  UNITS,
  WEEKDAY,
  WEEKDAYS,
  YEAR_THIRDS,
} from "./time-words.js";
import { fromWallClock, toWallClock } from "./zoned-wall-clock.js";

/**
 * Time expressions in German and English recall queries (issue 50 item 3, ADR 0491): "gestern",
 * "letzte Woche", "im März 2026", "vor 3 Tagen", "last Tuesday", "since June", "between March 1 and
 * March 5", … become a half-open interval [from, to) of memory time (valid_from), relative to the
 * request's reference instant (as_of, else now). Calendar units are UTC days and ISO weeks (Monday
 * first); a month or weekday without a year means the latest one that has begun by the reference
 * instant (recall looks back). Only the first expression counts. Deliberately no bare years ("2019"
 * is often content) and no bare month names without a preposition, a day or a year ("may", "mai");
 * quarters ("im dritten Quartal", "in Q3", "Q1 2025"; an English "quarter" only with its year: "in the
 * fourth quarter" is a game's) and parts of a year ("early 2025", "Mitte 2024": a third) are read
 * (ADR 0710); so are ranges ("von Januar bis März", "vom 1. bis 5. März"), holidays ("an
 * Weihnachten", "at Easter"), ISO calendar weeks ("KW 12") and "bis / until X" up to X's end (ADR 0720).
 */
export interface QueryTime {
  /** The expression as written in the query. */
  readonly text: string;
  /** Position of the expression in the query (UTF-16 index) and its length. */
  readonly index: number;
  readonly length: number;
  readonly from: Date;
  readonly to: Date;
}

/** How soon an anchor's next occurrence must come for "vor X" / "bis X" to mean it. */
const AHEAD_WITHIN = 31 * DAY;

const numberOf = (word: string) => NUMBERS[word] ?? Number(word);

// Anchors: expressions that name a span on their own. Each returns the span, or undefined to skip.
type Anchor = {
  readonly pattern: string;
  readonly span: (m: RegExpExecArray, ref: Date) => Span | undefined;
};

// The first month of a range and the word joining it to the second: a bare month after it is one
// ("von Januar bis März", "between March and May"; a bare "march" elsewhere may be a verb).
const RANGE_FIRST_MONTH = `(?:zwischen|between|von|vom|from)\\s+(?:${MONTH})(?:\\s+\\d{4})?\\s+(?:und|and|bis|to|until|till|through)\\s+`;

const g = (m: RegExpExecArray, name: string) => m.groups?.[name];
const yearOf = (m: RegExpExecArray) => {
  const y = g(m, "year");
  return y === undefined ? undefined : Number(y);
};

const twoDigitYear = (y: string | undefined) =>
  y === undefined ? undefined : y.length === 2 ? 2000 + Number(y) : Number(y);

/** Days d1 to d2 (inclusive) of one month: a range given backwards names nothing. */
function dayRangeSpan(
  m: RegExpExecArray,
  d1: string,
  d2: string,
  month: string,
  ref: Date,
): Span | undefined {
  const monthIndex = MONTHS[g(m, month) ?? ""] ?? -1;
  const first = dateSpan(Number(g(m, d1)), monthIndex, yearOf(m), ref);
  const last = dateSpan(Number(g(m, d2)), monthIndex, yearOf(m), ref);
  if (first === undefined || last === undefined || last.to <= first.from) return undefined;
  return { from: first.from, to: last.to };
}

const ANCHORS: readonly Anchor[] = [
  // ISO date 2026-03-03
  {
    pattern: "(?<iy>\\d{4})-(?<im>\\d{2})-(?<id>\\d{2})",
    span: (m, ref) => dateSpan(Number(g(m, "id")), Number(g(m, "im")) - 1, Number(g(m, "iy")), ref),
  },
  // German numeric 3.3.2026 / 03.03.
  {
    pattern: "(?<nd>\\d{1,2})\\.(?<nm>\\d{1,2})\\.(?<year>\\d{4})?",
    span: (m, ref) => dateSpan(Number(g(m, "nd")), Number(g(m, "nm")) - 1, yearOf(m), ref),
  },
  // 3. März 2026, 3 March 2026, 3rd of March
  {
    pattern: `(?<dd>\\d{1,2})(?:\\.|st|nd|rd|th)?\\s+(?:of\\s+)?(?<dm>${MONTH})\\.?(?:,?\\s+(?<year>\\d{4}))?`,
    span: (m, ref) => dateSpan(Number(g(m, "dd")), MONTHS[g(m, "dm") ?? ""] ?? -1, yearOf(m), ref),
  },
  // March 3, 2026 / March 3rd
  {
    pattern: `(?<md>${MONTH})\\.?\\s+(?<mdd>\\d{1,2})(?:st|nd|rd|th)?(?![\\d.:])(?:,?\\s+(?<year>\\d{4}))?`,
    span: (m, ref) => dateSpan(Number(g(m, "mdd")), MONTHS[g(m, "md") ?? ""] ?? -1, yearOf(m), ref),
  },
  // A day range in one month: "1. bis 5. März", "1.–5. März 2026", "March 1–5", "March 1 to 5, 2026"
  {
    pattern: `(?<gd1>\\d{1,2})\\.\\s*(?:bis|-|–)\\s*(?<gd2>\\d{1,2})\\.\\s*(?<gm>${MONTH})\\.?(?:\\s+(?<year>\\d{4}))?`,
    span: (m, ref) => dayRangeSpan(m, "gd1", "gd2", "gm", ref),
  },
  {
    pattern: `(?<em>${MONTH})\\.?\\s+(?<ed1>\\d{1,2})(?:st|nd|rd|th)?\\s*(?:-|–|to|through|until)\\s*(?<ed2>\\d{1,2})(?:st|nd|rd|th)?(?![\\d.:])(?:,?\\s+(?<year>\\d{4}))?`,
    span: (m, ref) => dayRangeSpan(m, "ed1", "ed2", "em", ref),
  },
  // März 2026, March 2026 (a month with its year needs no preposition)
  {
    pattern: `(?<my>${MONTH})\\.?\\s+(?<year>\\d{4})`,
    span: (m) => monthSpan(Number(g(m, "year")), MONTHS[g(m, "my") ?? ""] ?? -1),
  },
  // im März (2026), in June, Anfang Juni; after seit/since/before/… a bare month (the relation is
  // read from the words before the anchor, so they stay outside it)
  {
    pattern: `(?:(?:im|in|anfang|mitte|ende|early|mid|late|during)\\s+|mid-|(?:at\\s+|by\\s+|in\\s+)?(?:the\\s+)?(?:beginning|start|middle|end)\\s+of\\s+|(?<=(?:seit|since|bis|until|till|through|before|after|nach|ab|from|vor|zwischen|between|von|vom)\\s+)|(?<=${RANGE_FIRST_MONTH}))(?:(?:dem\\s+)?monat\\s+)?(?<bm>${MONTH})(?:\\s+(?<year>\\d{4}))?`,
    span: (m, ref) => {
      const month = MONTHS[g(m, "bm") ?? ""];
      if (month === undefined) return undefined;
      const year = yearOf(m);
      return year === undefined ? latestMonth(month, ref) : monthSpan(year, month);
    },
  },
  // im dritten Quartal (2025), in the third quarter of 2025, in Q3, Q3 2025: three months; without a
  // year the latest such quarter that has begun. A bare "Q3" is left alone (a car, a question number),
  // and an English quarter needs its year ("in the fourth quarter" of a game).
  {
    pattern: `(?:(?:im|in)\\s+(?:the\\s+)?)?(?:(?<qde>ersten|zweiten|dritten|vierten|[1-4]\\.)\\s+quartal(?:\\s+(?<year>(?:19|20)\\d{2}))?|(?<qen>first|second|third|fourth|1st|2nd|3rd|4th)\\s+quarter\\s+(?:of\\s+)?(?<qey>(?:19|20)\\d{2}))|(?:im|in)\\s+q(?<qp>[1-4])(?:\\s+(?<qpy>(?:19|20)\\d{2}))?|q(?<qy>[1-4])\\s+(?<qyy>(?:19|20)\\d{2})`,
    span: (m, ref) => {
      const quarter = QUARTERS[g(m, "qde") ?? g(m, "qen") ?? g(m, "qp") ?? g(m, "qy") ?? ""];
      if (quarter === undefined) return undefined;
      const written = g(m, "year") ?? g(m, "qey") ?? g(m, "qpy") ?? g(m, "qyy");
      return written !== undefined
        ? threeMonths(Number(written), 3 * quarter)
        : latestThreeMonths(3 * quarter, ref, false);
    },
  },
  // die erste Woche im Mai, in der letzten Maiwoche, the second week of March 2025: seven days of the
  // month (the last: its last seven); a month without a year is the latest that has begun.
  {
    pattern: `(?:in\\s+|während\\s+)?(?:der|die)\\s+(?<gwo>${MONTH_WEEK})\\s+(?:woche\\s+(?:im|des|vom|von)\\s+(?<gwm>${MONTH})|(?<gwc>${MONTH})woche)(?:\\s+(?<year>\\d{4}))?|(?:(?:in|during)\\s+)?the\\s+(?<ewo>${MONTH_WEEK})\\s+week\\s+(?:of|in)\\s+(?<ewm>${MONTH})(?:,?\\s+(?<year2>\\d{4}))?`,
    span: (m, ref) => {
      const month = MONTHS[g(m, "gwm") ?? g(m, "gwc") ?? g(m, "ewm") ?? ""];
      const nth = MONTH_WEEKS[g(m, "gwo") ?? g(m, "ewo") ?? ""];
      if (month === undefined || nth === undefined) return undefined;
      const year = g(m, "year") ?? g(m, "year2");
      return weekOfMonth(year === undefined ? latestMonth(month, ref) : monthSpan(Number(year), month), nth);
    },
  },
  // Anfang der Woche, Ende des Monats, at the beginning of the month, earlier this week: the current
  // week or month (a month's part is the month, ADR 0710)
  {
    pattern:
      "(?:anfang|mitte|ende)\\s+(?:(?:der|dieser)\\s+(?<pw>woche)|(?:des|dieses)\\s+monats)|(?:(?:at|in|by)\\s+)?the\\s+(?:beginning|start|middle|end)\\s+of\\s+(?:the|this)\\s+(?<pew>week|month)|earlier\\s+this\\s+(?<ptw>week|month)",
    span: (m, ref) => {
      const unit = g(m, "pw") ?? g(m, "pew") ?? g(m, "ptw");
      return unitSpan(unit === undefined ? "month" : (UNITS[unit] ?? "month"), ref, 0);
    },
  },
  // Ende letzten Jahres, Anfang dieses Jahres, late last year, the beginning of this year: a third of
  // that year, as "Ende 2024" is
  {
    pattern:
      "(?<gp>anfang|mitte|ende)\\s+(?:(?:des|dieses)\\s+(?<gt>jahres)|(?:des\\s+)?(?:letzten|vergangenen|vorigen)\\s+jahres)|(?<ep>early|mid|late)(?:\\s+|-)(?:(?<et>this)|last)\\s+year|(?:(?:at|in|by)\\s+)?the\\s+(?<bp>beginning|start|middle|end)\\s+of\\s+(?:(?<bt>the|this)|last)\\s+year",
    span: (m, ref) => {
      const third = YEAR_THIRDS[g(m, "gp") ?? g(m, "ep") ?? g(m, "bp") ?? ""] ?? 0;
      const thisYear = (g(m, "gt") ?? g(m, "et") ?? g(m, "bt")) !== undefined;
      return monthsSpan(ref.getUTCFullYear() - (thisYear ? 0 : 1), 4 * third, 4);
    },
  },
  // early 2025, Mitte 2024, Ende 2023, mid-2025: a third of the year (January–April, May–August,
  // September–December)
  {
    pattern: "(?:(?:in|im)\\s+)?(?<part>early|mid|late|anfang|mitte|ende)(?:\\s+|-)(?<year>(?:19|20)\\d{2})",
    span: (m) => {
      const third = YEAR_THIRDS[g(m, "part") ?? ""] ?? 0;
      return monthsSpan(Number(g(m, "year")), 4 * third, 4);
    },
  },
  // von 2020 bis 2022, between 2024 and 2025, from 2019–2021: whole years (a bare year range
  // needs its opening word: "2000 bis 3000" are counts)
  {
    pattern:
      "(?:zwischen|between|von|vom|from)\\s+(?:dem\\s+jahre?\\s+|the\\s+year\\s+)?(?<y1>(?:19|20)\\d{2})\\s*(?:und|and|bis|to|until|through|-|–)\\s*(?<y2>(?:19|20)\\d{2})",
    span: (m) => {
      const first = Number(g(m, "y1"));
      const last = Number(g(m, "y2"));
      return first <= last ? monthsSpan(first, 0, 12 * (last - first + 1)) : undefined;
    },
  },
  // im Jahr 2025, in 2025; after seit/since/… a bare year
  {
    pattern:
      "(?:(?:im\\s+jahre?|in|during)\\s+|(?<=(?:seit|since|bis|until|till|through|before|after|nach|ab|vor)\\s+))(?<year>(?:19|20)\\d{2})",
    span: (m) => yearSpan(Number(g(m, "year"))),
  },
  // Weihnachten, an Ostern, über Silvester, Christmas 2025, at Easter, on New Year's Eve. Not after
  // "zu" / "for" / "to": "Was wünscht sich Anna zu Weihnachten?", "a gift for Christmas" name a
  // purpose, and a time boost would push back the November note that answers them.
  {
    pattern: `(?:(?:an|über|at|on|over)\\s+(?:the\\s+)?(?<hd>${HOLIDAY})|(?<!(?:zu|for)\\s+)(?<hg>${GERMAN_HOLIDAY})|(?<!(?:for|to)\\s+)(?<he>${ENGLISH_HOLIDAY})(?=\\s+(?:19|20)\\d{2}|\\s*[^\\s\\p{L}]|\\s*$)|(?<=(?:seit|since|bis|until|till|up\\s+to|before|after|nach|ab|vor|von|vom|zwischen|between|from|und|and)\\s+)(?<hr>${HOLIDAY}))(?:\\s+(?<year>(?:19|20)\\d{2}))?`,
    span: (m, ref) => {
      const name = g(m, "hd") ?? g(m, "hg") ?? g(m, "he") ?? g(m, "hr") ?? "";
      const holiday = HOLIDAY_NAMES[name.replace(/\s+/gu, " ").replace(/’/gu, "'")];
      return holiday === undefined ? undefined : holidaySpan(holiday, yearOf(m), ref);
    },
  },
  // KW 12, in der KW 12/2026, Kalenderwoche 12, in der 12. Kalenderwoche, calendar week 12 (ISO weeks)
  {
    pattern:
      "(?:in\\s+(?:der\\s+)?)?(?:kw|kalenderwoche|calendar\\s+week|cw)\\s*(?<kw>\\d{1,2})(?:\\s*(?:/|\\s)\\s*(?<ky>(?:19|20)\\d{2}|'?\\d{2}(?!\\d)))?|(?:in\\s+der\\s+)?(?<ko>\\d{1,2})\\.\\s*(?:kalenderwoche|kw)(?:\\s+(?<year>(?:19|20)\\d{2}))?",
    span: (m, ref) =>
      isoWeekSpan(
        Number(g(m, "kw") ?? g(m, "ko")),
        twoDigitYear(g(m, "ky")?.replace("'", "")) ?? yearOf(m),
        ref,
      ),
  },
  // heute, gestern, vorgestern, today, yesterday, the day before yesterday
  {
    pattern: "vorgestern|(?:the\\s+)?day\\s+before\\s+yesterday",
    span: (_m, ref) => unitSpan("day", ref, 2),
  },
  { pattern: "gestern|yesterday", span: (_m, ref) => unitSpan("day", ref, 1) },
  {
    pattern:
      "heute\\s+(?:morgen|früh|vormittag|mittag|nachmittag|abend)|heute|vorhin|today|tonight|this\\s+(?:morning|afternoon|evening)",
    span: (_m, ref) => unitSpan("day", ref, 0),
  },
  // vor 3 Tagen, vor zwei Wochen
  {
    pattern: `vor\\s+(?<n>${NUMBER})\\s+(?<u>${UNIT})`,
    span: (m, ref) => agoSpan(UNITS[g(m, "u") ?? ""] ?? "day", numberOf(g(m, "n") ?? ""), ref),
  },
  // 3 days ago, a couple of weeks ago
  {
    pattern: `(?:a\\s+)?(?<n>${NUMBER})\\s+(?:of\\s+)?(?<u>${UNIT})\\s+ago`,
    span: (m, ref) => agoSpan(UNITS[g(m, "u") ?? ""] ?? "day", numberOf(g(m, "n") ?? ""), ref),
  },
  // in den letzten 3 Tagen, in the past two weeks, over the last 5 days
  {
    pattern: `(?:in\\s+den|während\\s+der|in\\s+the|over\\s+the|during\\s+the|within\\s+the)\\s+(?:letzten|vergangenen|past|last)\\s+(?<n>${NUMBER})\\s+(?<u>${UNIT})`,
    span: (m, ref) => lastNSpan(UNITS[g(m, "u") ?? ""] ?? "day", numberOf(g(m, "n") ?? ""), ref),
  },
  // letzten Dienstag, last Tuesday
  {
    pattern: `(?:letzten|letzter|vergangenen|vorigen|last|past)\\s+(?<lw>${WEEKDAY})`,
    span: (m, ref) => latestWeekday(WEEKDAYS[g(m, "lw") ?? ""] ?? -1, ref, true),
  },
  // Dienstagabend, am Montagmorgen, letzten Freitagnachmittag: the day (an evening or night runs on to
  // 6 the next morning, as "gestern Abend" does)
  {
    pattern: `(?:am\\s+|(?:letzten|vergangenen|vorigen)\\s+)?(?<wdc>montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag)(?<wdp>morgen|vormittag|mittag|nachmittag|abend|nacht)`,
    span: (m, ref) => {
      const strictly = /^(?:letzten|vergangenen|vorigen)/u.test(m[0]);
      const day = latestWeekday(WEEKDAYS[g(m, "wdc") ?? ""] ?? -1, ref, strictly);
      const late = g(m, "wdp") === "abend" || g(m, "wdp") === "nacht";
      return late ? { from: day.from, to: new Date(day.to.getTime() + 6 * 3_600_000) } : day;
    },
  },
  // am Dienstag, on Tuesday, Dienstag
  {
    pattern: `(?:am\\s+|on\\s+)?(?<wd>${WEEKDAY})`,
    span: (m, ref) => latestWeekday(WEEKDAYS[g(m, "wd") ?? ""] ?? -1, ref, false),
  },
  // letzte Woche, letzten Monat, letztes Jahr, im letzten Jahr, last week, the previous month
  {
    pattern: `(?:(?:im|in\\s+der|in\\s+the)\\s+)?(?:letzte|letzten|letzter|letztes|vergangene|vergangenen|vergangenes|vorige|vorigen|voriges|last|past|previous)\\s+(?<lu>woche|monats|monat|jahres|jahr|week|month|year)`,
    span: (m, ref) => unitSpan(UNITS[g(m, "lu") ?? ""] ?? "week", ref, 1),
  },
  // diese Woche, diesen Monat, dieses Jahr, this week
  {
    pattern: `(?:diese|diesen|dieses|dieser|this)\\s+(?<tu>woche|monats|monat|jahres|jahr|week|month|year)`,
    span: (m, ref) => unitSpan(UNITS[g(m, "tu") ?? ""] ?? "week", ref, 0),
  },
  // vorletzte Woche, the week before last
  {
    pattern:
      "(?:vorletzte|vorletzten|vorletzter|vorletztes)\\s+(?<vu>woche|monat|jahr)|the\\s+(?<bu>week|month|year)\\s+before\\s+last",
    span: (m, ref) => unitSpan(UNITS[g(m, "vu") ?? g(m, "bu") ?? ""] ?? "week", ref, 2),
  },
  // letztes Wochenende, last weekend; am Wochenende, over / this past weekend (the latest that has begun)
  {
    pattern: "(?:letztes|letzten|vergangenes|vergangenen|voriges|vorigen|last)\\s+(?:wochenende|weekend)",
    span: (_m, ref) => weekendSpan(ref, false),
  },
  {
    pattern:
      "(?:am|übers|über\\s+das|dieses|diesem|on\\s+the|over\\s+the|at\\s+the|this\\s+past|the\\s+past|this)\\s+(?:wochenende|weekend)",
    span: (_m, ref) => weekendSpan(ref, true),
  },
  // last night, gestern Abend / Nacht: the evening and night before
  {
    pattern: "last\\s+night|gestern\\s+(?:abend|nacht)",
    span: (_m, ref) => ({ from: utcDay(ref, -1), to: new Date(utcDay(ref).getTime() + 6 * 3_600_000) }),
  },
  // vor ein paar Tagen, a few days ago: two to six days back
  {
    pattern: "vor\\s+(?:ein\\s+paar|einigen|wenigen)\\s+tagen|(?:a\\s+)?(?:few|several)\\s+days\\s+ago",
    span: (_m, ref) => ({ from: utcDay(ref, -6), to: utcDay(ref, -1) }),
  },
  // vor ein paar Wochen, a few weeks ago: two to five weeks back; vor einigen Monaten, a few months
  // ago: two to six months back
  {
    pattern:
      "vor\\s+(?:ein\\s+paar|einigen|wenigen|mehreren)\\s+(?<fu>wochen|monaten)|(?:a\\s+)?(?:few|several|couple\\s+of)\\s+(?<eu>weeks|months)\\s+ago",
    span: (m, ref) =>
      (g(m, "fu") ?? g(m, "eu"))?.startsWith("w")
        ? { from: utcDay(ref, -35), to: utcDay(ref, -7) }
        : { from: monthSpan(ref.getUTCFullYear(), ref.getUTCMonth() - 6).from, to: utcDay(ref, -30) },
  },
  // im letzten halben Jahr, in the past half year; vor einem halben Jahr, half a year ago
  {
    pattern:
      "(?:im|in\\s+dem)\\s+(?:letzten|vergangenen)\\s+halben\\s+jahr|(?:in|over|during|within)\\s+the\\s+(?:last|past)\\s+half\\s+(?:a\\s+)?year",
    span: (_m, ref) => lastNSpan("month", 6, ref),
  },
  {
    pattern: "vor\\s+einem\\s+halben\\s+jahr|half\\s+a\\s+year\\s+ago",
    span: (_m, ref) => agoSpan("month", 6, ref),
  },
  // in den letzten (paar) Tagen, in the last few days: the last week up to the reference
  {
    pattern:
      "(?:in\\s+den|während\\s+der)\\s+(?:letzten|vergangenen)\\s+(?:paar\\s+|wenigen\\s+)?tagen|(?:in|over|during|within)\\s+the\\s+(?:last|past)\\s+(?:few|couple\\s+of)\\s+days",
    span: (_m, ref) => ({ from: utcDay(ref, -7), to: new Date(ref.getTime() + 1) }),
  },
  // neulich, vor kurzem, recently, the other day: the last two weeks
  {
    pattern:
      "neulich|kürzlich|vor\\s+kurzem|unlängst|letztens|in\\s+letzter\\s+zeit|recently|lately|the\\s+other\\s+day",
    span: (_m, ref) => ({ from: utcDay(ref, -14), to: new Date(ref.getTime() + 1) }),
  },
  // letzten Sommer, last summer (the latest that has ended); diesen Sommer; im Sommer 2025, summer of 2025.
  // No bare "im Sommer": "Was brauche ich im Winter?" asks about winters, not the last one.
  {
    pattern: `(?:(?<sl>letzten|letztes|vergangenen|vergangenes|vorigen|voriges|last|past|this\\s+past)|(?<st>diesen|dieses|this))\\s+(?<sn>${SEASON})`,
    span: (m, ref) => latestThreeMonths(SEASONS[g(m, "sn") ?? ""] ?? 5, ref, g(m, "sl") !== undefined),
  },
  {
    pattern: `(?:(?:im|in\\s+the|in|during\\s+the|during)\\s+)?(?<sy>${SEASON})\\s+(?:of\\s+)?(?<year>(?:19|20)\\d{2})`,
    span: (m) => threeMonths(Number(g(m, "year")), SEASONS[g(m, "sy") ?? ""] ?? 5),
  },
];

// Relations around an anchor: "seit X" = [X, ref] ("from X" is X itself: "notes from 3 days ago"); "vor/before X" = [−∞, X);
// "bis/until X" = [−∞, X's end): X is included ("bis Ende 2026" runs to the year's end, "bis gestern"
// holds yesterday); "nach/after X" = [X's end, ref]; "zwischen X und Y" / "between X and Y" = [X, Y's end).
const SINCE = /(?:seit|since|ab)\s+$/u;
// "in der Woche vor Weihnachten", "the week after Easter", "am Tag vor X", "the days leading up to X":
// seven days (a day) before X begins or after it ends; before, X may be the coming one once that week
// has begun.
const NEXT_TO =
  /(?:(?:(?:in|an)\s+)?(?:der|die|dem|den)\s+(?<gu>woche|tag|tagen|tage)|am\s+(?<ga>tag))\s+(?<gr>vor|nach)(?:\s+dem)?\s+$|(?:(?:in|during|on)\s+)?the\s+(?<eu>week|day|days)\s+(?<er>before|after|leading\s+up\s+to|prior\s+to)(?:\s+the)?\s+$/u;
const BEFORE = /(?:vor|before|prior\s+to)\s+$/u;
const UNTIL = /(?:bis\s+(?:zum\s+|zur\s+)?|until\s+|till\s+|through\s+|up\s+to\s+)$/u;
const AFTER = /(?:nach|after)\s+$/u;
const BETWEEN = /(?:zwischen|between|von|vom|from)\s+(?:dem\s+|the\s+)?$/u;
const AND = /^\s*(?:(?:und|and|bis|to|until|till|through)\s+(?:zum\s+|dem\s+|the\s+)?|[-–]\s*)/u;

const BOUND_BEFORE = "(?<![\\p{L}\\p{N}])";
// An anchor ends where its word ends, and a hyphen joining letters or digits continues the word:
// "in 2019-nCoV" names a virus, "heute-show" a programme.
const BOUND_AFTER = "(?![\\p{L}\\p{N}]|-[\\p{L}\\p{N}])";
const COMPILED = ANCHORS.map((a) => ({
  ...a,
  re: new RegExp(`${BOUND_BEFORE}(?:${a.pattern})${BOUND_AFTER}`, "gu"),
}));

interface Found {
  readonly index: number;
  readonly length: number;
  readonly span: Span;
}

function anchorsIn(text: string, ref: Date): Found[] {
  const found: Found[] = [];
  for (const anchor of COMPILED) {
    anchor.re.lastIndex = 0;
    for (let m = anchor.re.exec(text); m !== null; m = anchor.re.exec(text)) {
      const span = anchor.span(m, ref);
      if (span !== undefined && Number.isFinite(span.from.getTime()) && span.from < span.to)
        found.push({ index: m.index, length: m[0].length, span });
    }
  }
  // Leftmost, then longest; overlapping later matches are dropped.
  found.sort((a, b) => a.index - b.index || b.length - a.length);
  const kept: Found[] = [];
  for (const f of found) {
    const last = kept.at(-1);
    if (last === undefined || f.index >= last.index + last.length) kept.push(f);
  }
  return kept;
}

/**
 * The first time expression of the query as an interval of memory time, or undefined. Days, weeks and
 * months are those of `timeZone` (IANA; RECALL_TIME_ZONE, default UTC, ADR 0620).
 */
export function parseQueryTime(query: string, at: Date, timeZone = "UTC"): QueryTime | undefined {
  const found = parseInWallClock(query, toWallClock(at, timeZone));
  if (found === undefined) return undefined;
  return { ...found, from: fromWallClock(found.from, timeZone), to: fromWallClock(found.to, timeZone) };
}

/** parseQueryTime on a wall-clock reference (zoned-wall-clock.ts): the interval in wall-clock time. */
function parseInWallClock(query: string, reference: Date): QueryTime | undefined {
  const lower = query.toLowerCase();
  const anchors = anchorsIn(lower, reference);
  const first = anchors[0];
  if (first === undefined) return undefined;
  const before = lower.slice(0, first.index);
  let index = first.index;
  let end = first.index + first.length;
  let { from, to } = first.span;
  const relation = (re: RegExp) => re.exec(before);
  const nextTo = relation(NEXT_TO);
  const since = relation(SINCE);
  const upTo = relation(BEFORE);
  const until = relation(UNTIL);
  const after = relation(AFTER);
  const between = relation(BETWEEN);
  const second = anchors[1];
  const joined = second === undefined ? null : AND.exec(lower.slice(end, second.index));
  if (nextTo !== null) {
    const days = /^(?:tag|day)$/u.test(nextTo.groups?.gu ?? nextTo.groups?.ga ?? nextTo.groups?.eu ?? "")
      ? 1
      : 7;
    const afterIt = (nextTo.groups?.gr ?? nextTo.groups?.er) === "nach" || nextTo.groups?.er === "after";
    index -= nextTo[0].length;
    if (afterIt) {
      from = to;
      to = new Date(to.getTime() + days * DAY);
    } else {
      const ahead = first.span.ahead;
      const begun = ahead !== undefined && ahead.from.getTime() - days * DAY <= reference.getTime();
      const anchor = begun ? ahead : first.span;
      from = new Date(anchor.from.getTime() - days * DAY);
      to = anchor.from;
    }
  } else if (
    between !== null &&
    second !== undefined &&
    joined !== null &&
    joined[0].length === second.index - end
  ) {
    index -= between[0].length;
    to = second.span.to;
    end = second.index + second.length;
    // "von November bis Februar": each bare month is the latest that has begun, so the first can
    // come out after the second; the range then starts in the year before.
    if (!(from < to))
      from = new Date(Date.UTC(from.getUTCFullYear() - 1, from.getUTCMonth(), from.getUTCDate()));
  } else if (since !== null) {
    index -= since[0].length;
    to = new Date(Math.max(reference.getTime() + 1, to.getTime()));
  } else if (upTo !== null || until !== null) {
    const ahead = first.span.ahead;
    const soon = ahead !== undefined && ahead.from.getTime() - reference.getTime() <= AHEAD_WITHIN;
    const span = soon ? ahead : first.span;
    index -= (upTo ?? until)?.[0].length ?? 0;
    to = upTo !== null ? span.from : span.to;
    from = new Date(0);
  } else if (after !== null) {
    index -= after[0].length;
    from = to;
    to = new Date(Math.max(reference.getTime() + 1, to.getTime()));
  }
  if (!(from < to)) return undefined;
  return { text: query.slice(index, end), index, length: end - index, from, to };
}
