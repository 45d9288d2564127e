/**
 * The dictd `.index` format: one line per headword, `headword \t offset \t length`, where offset and length
 * are numbers written in dictd's base64 digits (A–Z a–z 0–9 + /, most significant digit first) and point
 * into the uncompressed `.dict` text.
 */
export interface DictdIndexLine {
  readonly headword: string;
  readonly offset: number;
  readonly length: number;
}

const DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT_VALUE = new Map([...DIGITS].map((digit, value) => [digit, value]));

/** Decodes one dictd base64 number; returns undefined for a character outside the alphabet. */
export function decodeDictdNumber(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let value = 0;
  for (const digit of text) {
    const digitValue = DIGIT_VALUE.get(digit);
    if (digitValue === undefined) return undefined;
    value = value * 64 + digitValue;
  }
  return value;
}

/** Encodes a non-negative integer in dictd base64 (used by tests that build their own fixtures). */
export function encodeDictdNumber(value: number): string {
  let rest = Math.floor(value);
  let text = "";
  do {
    text = DIGITS[rest % 64] + text;
    rest = Math.floor(rest / 64);
  } while (rest > 0);
  return text;
}

/** Parses a whole index file; malformed lines are skipped (counted so the caller can report them). */
export function parseDictdIndex(text: string): { lines: DictdIndexLine[]; skipped: number } {
  const lines: DictdIndexLine[] = [];
  let skipped = 0;
  for (const raw of text.split("\n")) {
    if (raw.length === 0) continue;
    const [headword, offsetText, lengthText] = raw.split("\t");
    const offset = offsetText === undefined ? undefined : decodeDictdNumber(offsetText);
    const length = lengthText === undefined ? undefined : decodeDictdNumber(lengthText.trimEnd());
    if (headword === undefined || offset === undefined || length === undefined) {
      skipped++;
      continue;
    }
    lines.push({ headword: headword.trim(), offset, length });
  }
  return { lines, skipped };
}
