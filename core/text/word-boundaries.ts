/**
 * What "a word" means for the chunker: a maximal run of characters between breaking whitespace. A chunk
 * boundary may only fall where whitespace meets non-whitespace, so no word is ever cut in two — except a
 * single run longer than a whole chunk (a base64 blob, a minified line), which `splitOversizedRun` cuts.
 */

/**
 * Breaking whitespace. No-break spaces (U+00A0, U+2007, U+202F) join their neighbours ("10 000",
 * "z. B.") and therefore count as part of a word.
 */
export function isBreakingSpace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x1680) return false;
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a && code !== 0x2007) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** True when `pos` lies strictly inside a run of non-whitespace characters. */
export function isInsideWord(text: string, pos: number): boolean {
  if (pos <= 0 || pos >= text.length) return false;
  return !isBreakingSpace(text.charCodeAt(pos - 1)) && !isBreakingSpace(text.charCodeAt(pos));
}

/** Positions in (start, end) where a word begins: non-whitespace preceded by whitespace. */
export function wordStarts(text: string, start: number, end: number): number[] {
  const starts: number[] = [];
  for (let i = start + 1; i < end; i++) {
    if (!isBreakingSpace(text.charCodeAt(i)) && isBreakingSpace(text.charCodeAt(i - 1))) starts.push(i);
  }
  return starts;
}

/** Positions in (start, end) right after a line feed, i.e. where a line begins. */
export function lineStarts(text: string, start: number, end: number): number[] {
  const starts: number[] = [];
  let i = text.indexOf("\n", start);
  while (i !== -1 && i + 1 < end) {
    starts.push(i + 1);
    i = text.indexOf("\n", i + 1);
  }
  return starts;
}

/**
 * Moves `pos` back so it does not split a surrogate pair or separate a combining mark / joiner from the
 * character it belongs to. Used only for hard cuts inside an oversized run.
 */
export function snapToCharacterStart(text: string, pos: number, floor: number): number {
  let p = pos;
  while (p > floor + 1) {
    const code = text.charCodeAt(p);
    const isLowSurrogate = code >= 0xdc00 && code <= 0xdfff;
    const isJoiner = code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f);
    const isCombining = code >= 0x0300 && code <= 0x036f;
    const followsJoiner = text.charCodeAt(p - 1) === 0x200d;
    if (!isLowSurrogate && !isJoiner && !isCombining && !followsJoiner) break;
    p--;
  }
  return p;
}
