/**
 * The words of the query-time parser (parse-query-time.ts), German and English: month, weekday,
 * number, unit, season, quarter and holiday names, with the regular-expression alternations the
 * anchors are written with (longest first, so "märz" wins over "mär").
 */
import type { Holiday, Unit } from "./calendar-spans.js";

export const MONTHS: Readonly<Record<string, number>> = {
  januar: 0,
  jänner: 0,
  january: 0,
  jan: 0,
  februar: 1,
  february: 1,
  feb: 1,
  märz: 2,
  maerz: 2,
  march: 2,
  mär: 2,
  april: 3,
  apr: 3,
  mai: 4,
  may: 4,
  juni: 5,
  june: 5,
  jun: 5,
  juli: 6,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sept: 8,
  sep: 8,
  oktober: 9,
  october: 9,
  okt: 9,
  oct: 9,
  november: 10,
  nov: 10,
  dezember: 11,
  december: 11,
  dez: 11,
  dec: 11,
};
// Longest first, so "märz" wins over "mär" in the alternation.
export const MONTH = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join("|");

export const WEEKDAYS: Readonly<Record<string, number>> = {
  sonntag: 0,
  sunday: 0,
  montag: 1,
  monday: 1,
  dienstag: 2,
  tuesday: 2,
  mittwoch: 3,
  wednesday: 3,
  donnerstag: 4,
  thursday: 4,
  freitag: 5,
  friday: 5,
  samstag: 6,
  sonnabend: 6,
  saturday: 6,
};
export const WEEKDAY = Object.keys(WEEKDAYS).join("|");

export const NUMBERS: Readonly<Record<string, number>> = {
  ein: 1,
  eine: 1,
  einem: 1,
  einer: 1,
  einen: 1,
  a: 1,
  an: 1,
  one: 1,
  zwei: 2,
  two: 2,
  drei: 3,
  three: 3,
  vier: 4,
  four: 4,
  fünf: 5,
  five: 5,
  sechs: 6,
  six: 6,
  sieben: 7,
  seven: 7,
  acht: 8,
  eight: 8,
  neun: 9,
  nine: 9,
  zehn: 10,
  ten: 10,
  elf: 11,
  eleven: 11,
  zwölf: 12,
  twelve: 12,
  couple: 2,
};
export const NUMBER = `\\d{1,3}|${Object.keys(NUMBERS).join("|")}`;

export const UNITS: Readonly<Record<string, Unit>> = {
  tag: "day",
  tage: "day",
  tagen: "day",
  tages: "day",
  day: "day",
  days: "day",
  woche: "week",
  wochen: "week",
  week: "week",
  weeks: "week",
  monat: "month",
  monate: "month",
  monaten: "month",
  monats: "month",
  month: "month",
  months: "month",
  jahr: "year",
  jahre: "year",
  jahren: "year",
  jahres: "year",
  year: "year",
  years: "year",
};
export const UNIT = Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .join("|");

export const SEASONS: Readonly<Record<string, number>> = {
  frühling: 2,
  frühjahr: 2,
  spring: 2,
  sommer: 5,
  summer: 5,
  herbst: 8,
  autumn: 8,
  fall: 8,
  winter: 11,
};
export const SEASON = Object.keys(SEASONS).join("|");

export const QUARTERS: Readonly<Record<string, number>> = {
  ersten: 0,
  "1.": 0,
  first: 0,
  "1st": 0,
  "1": 0,
  zweiten: 1,
  "2.": 1,
  second: 1,
  "2nd": 1,
  "2": 1,
  dritten: 2,
  "3.": 2,
  third: 2,
  "3rd": 2,
  "3": 2,
  vierten: 3,
  "4.": 3,
  fourth: 3,
  "4th": 3,
  "4": 3,
};
export const YEAR_THIRDS: Readonly<Record<string, number>> = {
  early: 0,
  anfang: 0,
  beginning: 0,
  start: 0,
  mid: 1,
  mitte: 1,
  middle: 1,
  late: 2,
  ende: 2,
  end: 2,
};
/** Which seven days of a month: "die erste Woche im Mai", "the last week of May" (−1: the last seven). */
export const MONTH_WEEKS: Readonly<Record<string, number>> = {
  erste: 0,
  ersten: 0,
  first: 0,
  "1st": 0,
  zweite: 1,
  zweiten: 1,
  second: 1,
  "2nd": 1,
  dritte: 2,
  dritten: 2,
  third: 2,
  "3rd": 2,
  vierte: 3,
  vierten: 3,
  fourth: 3,
  "4th": 3,
  letzte: -1,
  letzten: -1,
  last: -1,
};
export const MONTH_WEEK = Object.keys(MONTH_WEEKS).join("|");

// German and English names: a bare English name before another word is a modifier ("Christmas tree
// ideas", "Easter eggs"), a German one would be a compound ("Weihnachtsbaum").
const GERMAN_HOLIDAYS: Readonly<Record<string, Holiday>> = {
  weihnachten: "christmas",
  weihnachtsfeiertagen: "christmas",
  heiligabend: "christmasEve",
  silvester: "newYearsEve",
  neujahr: "newYearsDay",
  jahreswechsel: "newYears",
  ostern: "easter",
  ostersonntag: "easterSunday",
  ostermontag: "easterMonday",
  pfingsten: "pentecost",
};
const ENGLISH_HOLIDAYS: Readonly<Record<string, Holiday>> = {
  christmas: "christmas",
  "christmas eve": "christmasEve",
  "christmas day": "christmasDay",
  "new year's eve": "newYearsEve",
  "new years eve": "newYearsEve",
  "new year's day": "newYearsDay",
  "new years day": "newYearsDay",
  "new year's": "newYears",
  "new years": "newYears",
  easter: "easter",
  "easter sunday": "easterSunday",
  "easter monday": "easterMonday",
  pentecost: "pentecost",
  whitsun: "pentecost",
  thanksgiving: "thanksgiving",
};
export const HOLIDAY_NAMES = { ...GERMAN_HOLIDAYS, ...ENGLISH_HOLIDAYS };
const holidayPattern = (names: Readonly<Record<string, unknown>>) =>
  Object.keys(names)
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/ /gu, "\\s+").replace(/'/gu, "['’]"))
    .join("|");
export const HOLIDAY = holidayPattern(HOLIDAY_NAMES);
export const GERMAN_HOLIDAY = holidayPattern(GERMAN_HOLIDAYS);
export const ENGLISH_HOLIDAY = holidayPattern(ENGLISH_HOLIDAYS);
