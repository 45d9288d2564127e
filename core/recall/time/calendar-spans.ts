/**
 * Calendar arithmetic of the query-time parser (parse-query-time.ts): the spans that days, weeks,
 * months, seasons, quarters, holidays and ISO weeks name, relative to a reference instant. UTC
 * days (the parser works on wall-clock time, zoned-wall-clock.ts), ISO weeks from Monday.
 */
export const DAY = 86_400_000;

export type Unit = "day" | "week" | "month" | "year";

export interface Span {
  readonly from: Date;
  readonly to: Date;
  /**
   * The next occurrence, for an anchor that chose its latest past one (a holiday): "vor Weihnachten"
   * / "bis Weihnachten" said three weeks before it mean this one.
   */
  readonly ahead?: Span;
}

export const utcDay = (t: Date, offsetDays = 0) =>
  new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + offsetDays));
export const daySpan = (start: Date): Span => ({ from: start, to: new Date(start.getTime() + DAY) });
/** `months` calendar months from the first day of `firstMonth` of `year` (months past 11 roll over). */
export const monthsSpan = (year: number, firstMonth: number, months: number): Span => ({
  from: new Date(Date.UTC(year, firstMonth, 1)),
  to: new Date(Date.UTC(year, firstMonth + months, 1)),
});
export const monthSpan = (year: number, month: number): Span => monthsSpan(year, month, 1);
export const yearSpan = (year: number): Span => monthsSpan(year, 0, 12);
/** Monday 00:00 UTC of the ISO week holding t. */
export const weekStart = (t: Date) => utcDay(t, -((t.getUTCDay() + 6) % 7));

export function unitSpan(unit: Unit, ref: Date, back: number): Span {
  switch (unit) {
    case "day":
      return daySpan(utcDay(ref, -back));
    case "week": {
      const start = weekStart(ref);
      return { from: utcDay(start, -7 * back), to: utcDay(start, -7 * back + 7) };
    }
    case "month":
      return monthSpan(ref.getUTCFullYear(), ref.getUTCMonth() - back);
    case "year":
      return yearSpan(ref.getUTCFullYear() - back);
  }
}

/** "vor 3 Tagen", "two weeks ago": the unit-long span that far back (a day: that calendar day). */
export function agoSpan(unit: Unit, n: number, ref: Date): Span {
  if (unit === "day") return daySpan(utcDay(ref, -n));
  const length = unit === "week" ? 7 * DAY : unit === "month" ? 30.44 * DAY : 365.25 * DAY;
  const centre = ref.getTime() - n * length;
  return { from: new Date(centre - length / 2), to: new Date(Math.min(ref.getTime(), centre + length / 2)) };
}

/** "in den letzten 3 Tagen", "in the past two weeks": from that far back up to the reference. */
export const lastNSpan = (unit: Unit, n: number, ref: Date): Span => ({
  from:
    unit === "day"
      ? utcDay(ref, -n)
      : new Date(ref.getTime() - n * (unit === "week" ? 7 : unit === "month" ? 30.44 : 365.25) * DAY),
  to: new Date(ref.getTime() + 1),
});

/** The latest occurrence of the month (no year given) that has begun by ref. */
export function latestMonth(month: number, ref: Date): Span {
  const year = month <= ref.getUTCMonth() ? ref.getUTCFullYear() : ref.getUTCFullYear() - 1;
  return monthSpan(year, month);
}

/** The nth seven days of a month from its first day (0-based), or (nth < 0) its last seven. */
export function weekOfMonth(month: Span, nth: number): Span {
  if (nth < 0) return { from: new Date(month.to.getTime() - 7 * DAY), to: month.to };
  const from = new Date(month.from.getTime() + 7 * nth * DAY);
  return { from, to: new Date(Math.min(month.to.getTime(), from.getTime() + 7 * DAY)) };
}

/** The latest such weekday strictly before ref's day ("letzten Dienstag"), or on or before it. */
export function latestWeekday(weekday: number, ref: Date, strictlyBefore: boolean): Span {
  let back = (ref.getUTCDay() - weekday + 7) % 7;
  if (back === 0 && strictlyBefore) back = 7;
  return daySpan(utcDay(ref, -back));
}

/** A calendar date (day, month, optional year); day-month order as written in either language. */
export function dateSpan(day: number, month: number, year: number | undefined, ref: Date): Span | undefined {
  if (!(day >= 1 && day <= 31 && month >= 0 && month <= 11)) return undefined;
  const at = (y: number) => new Date(Date.UTC(y, month, day));
  if (year !== undefined) return daySpan(at(year));
  const thisYear = at(ref.getUTCFullYear());
  return daySpan(thisYear.getTime() <= ref.getTime() ? thisYear : at(ref.getUTCFullYear() - 1));
}

/**
 * A weekend, Saturday 00:00 to Monday 00:00. `latest`: the current one if it has begun, else the one
 * before ("am Wochenende" on a Wednesday looks back); otherwise the previous ISO week's ("last
 * weekend", also said on a Sunday of the one before).
 */
export function weekendSpan(ref: Date, latest: boolean): Span {
  const monday = weekStart(ref);
  const begun = latest && ref.getTime() >= utcDay(monday, 5).getTime();
  return begun
    ? { from: utcDay(monday, 5), to: utcDay(monday, 7) }
    : { from: utcDay(monday, -2), to: monday };
}

/** Meteorological seasons (winter: December to February) and quarters: three months from `firstMonth`. */
export const threeMonths = (year: number, firstMonth: number): Span => monthsSpan(year, firstMonth, 3);

/** The latest such three months (a season, a quarter) that have begun by ref, or (`ended`) ended by it. */
export function latestThreeMonths(firstMonth: number, ref: Date, ended: boolean): Span {
  for (let year = ref.getUTCFullYear(); ; year--) {
    const span = threeMonths(year, firstMonth);
    if ((ended ? span.to : span.from).getTime() <= ref.getTime()) return span;
  }
}

/** Easter Sunday of a year (the Gregorian computus, Meeus/Jones/Butcher). */
function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((8 * b + 13) / 25) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

/**
 * Holidays people date things by, as the days they span in a year: Christmas the 24th to the 26th
 * (German Weihnachten takes in Heiligabend), Easter Good Friday to Easter Monday, Pentecost its Sunday
 * and Monday, New Year's (both days) New Year's Eve and Day, US Thanksgiving the fourth Thursday of
 * November.
 */
const HOLIDAYS = {
  christmas: (y) => ({ from: new Date(Date.UTC(y, 11, 24)), to: new Date(Date.UTC(y, 11, 27)) }),
  christmasEve: (y) => daySpan(new Date(Date.UTC(y, 11, 24))),
  christmasDay: (y) => daySpan(new Date(Date.UTC(y, 11, 25))),
  newYearsEve: (y) => daySpan(new Date(Date.UTC(y, 11, 31))),
  newYearsDay: (y) => daySpan(new Date(Date.UTC(y, 0, 1))),
  newYears: (y) => ({ from: new Date(Date.UTC(y - 1, 11, 31)), to: new Date(Date.UTC(y, 0, 2)) }),
  easter: (y) => ({ from: utcDay(easterSunday(y), -2), to: utcDay(easterSunday(y), 2) }),
  easterSunday: (y) => daySpan(easterSunday(y)),
  easterMonday: (y) => daySpan(utcDay(easterSunday(y), 1)),
  pentecost: (y) => ({ from: utcDay(easterSunday(y), 49), to: utcDay(easterSunday(y), 51) }),
  thanksgiving: (y) => {
    const first = new Date(Date.UTC(y, 10, 1));
    return daySpan(utcDay(first, ((4 - first.getUTCDay() + 7) % 7) + 21));
  },
} satisfies Record<string, (year: number) => Span>;

export type Holiday = keyof typeof HOLIDAYS;

/**
 * A yearly span in the given year, else the latest that has begun by ref, with the one after it
 * (`next`): recall looks back, but "vor Weihnachten" may mean the coming one.
 */
function inYearOrLatest(
  of: (year: number) => Span,
  year: number | undefined,
  ref: Date,
): { span: Span; next?: Span } {
  if (year !== undefined) return { span: of(year) };
  const now = of(ref.getUTCFullYear());
  return now.from.getTime() <= ref.getTime()
    ? { span: now, next: of(ref.getUTCFullYear() + 1) }
    : { span: of(ref.getUTCFullYear() - 1), next: now };
}

/** The holiday in the given year, else its latest occurrence that has begun by ref (and the next). */
export function holidaySpan(holiday: Holiday, year: number | undefined, ref: Date): Span {
  const { span, next } = inYearOrLatest(HOLIDAYS[holiday], year, ref);
  return next === undefined ? span : { ...span, ahead: next };
}

/** Monday of ISO week 1: the week holding January 4th. */
const isoWeekOne = (year: number) => weekStart(new Date(Date.UTC(year, 0, 4)));

/** ISO week `week` of the given year, else the latest week of that number that has begun by ref. */
export function isoWeekSpan(week: number, year: number | undefined, ref: Date): Span | undefined {
  if (!(week >= 1 && week <= 53)) return undefined;
  const of = (y: number): Span => {
    const from = utcDay(isoWeekOne(y), 7 * (week - 1));
    return { from, to: utcDay(from, 7) };
  };
  return inYearOrLatest(of, year, ref).span;
}
