/**
 * A copy of `text` that shares no memory with the string it was cut from. V8 represents a substring
 * of 13 characters or more (a regex match, `slice`, a driver's array parser) as a view into its
 * parent, so a long-lived Map that keeps a word as key or value keeps the whole text the word came
 * from: the built-in models' word memos kept one document per long word (20k documents of 2.7 KB
 * with two one-off words each: +37.5 MB of live heap, against +12.1 MB for the same words in short
 * documents). For what is kept, never for what is only looked up: the copy costs a round trip
 * through a buffer. UTF-16 keeps any string exactly as it was, lone surrogates included.
 */
export function ownString(text: string): string {
  // V8 copies shorter substrings itself (SlicedString::kMinLength): nothing to detach.
  if (text.length < SLICE_MIN_LENGTH) return text;
  return Buffer.from(text, "utf16le").toString("utf16le");
}

const SLICE_MIN_LENGTH = 13;
