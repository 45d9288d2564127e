/**
 * The sorted lexemes of a compacted BM25 index in one string, found by binary search (issue 46).
 *
 * A Map keyed by the lexemes cost ≈ 240 KB of hash table per 500-chunk workspace, and each key was
 * a sliced string that kept its chunk's whole lexeme array text alive. One flat string and an offset
 * array hold the same keys in about their own bytes; a recall looks up a few dozen terms, so the
 * ≈ log2(n) comparisons per term cost microseconds.
 */
export class LexemeDictionary {
  static readonly EMPTY = new LexemeDictionary([]);

  private readonly text: string;
  /** Lexeme i is text[offsets[i], offsets[i + 1]). */
  private readonly offsets: Int32Array;

  /** `sorted` in ascending code-unit order (the `<` of JavaScript strings), without duplicates. */
  constructor(sorted: readonly string[]) {
    this.offsets = new Int32Array(sorted.length + 1);
    let at = 0;
    for (let i = 0; i < sorted.length; i++) {
      at += (sorted[i] as string).length;
      this.offsets[i + 1] = at;
    }
    // join() of one-byte strings gives one flat sequential string, not a rope of the parts.
    this.text = sorted.join("");
  }

  /** A dictionary from its two parts as `parts()` gave them (a persisted segment); checked. */
  static fromParts(text: string, offsets: Int32Array): LexemeDictionary {
    if (offsets.length < 1 || offsets[0] !== 0 || offsets[offsets.length - 1] !== text.length)
      throw new Error("lexeme offsets do not span the text");
    for (let i = 1; i < offsets.length; i++)
      if ((offsets[i] as number) <= (offsets[i - 1] as number))
        throw new Error("lexeme offsets not increasing");
    const dictionary = Object.create(LexemeDictionary.prototype) as LexemeDictionary;
    Object.assign(dictionary, { text, offsets });
    return dictionary;
  }

  /** The text of all lexemes and where each starts (code units), for persisting. */
  parts(): { readonly text: string; readonly offsets: Int32Array } {
    return { text: this.text, offsets: this.offsets };
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  /** Bytes held: the characters (one byte each for Latin-1 text) and the offsets. */
  get bytes(): number {
    return this.text.length + this.offsets.byteLength;
  }

  lexemeAt(slot: number): string {
    return this.text.slice(this.offsets[slot] as number, this.offsets[slot + 1] as number);
  }

  /** The lexeme's slot, or -1. */
  slotOf(lexeme: string): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const probe = this.lexemeAt(mid);
      if (probe === lexeme) return mid;
      if (probe < lexeme) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** The union of a dictionary's lexemes and more, in the dictionary's order (a merge, no full sort). */
export function mergeLexemes(dictionary: LexemeDictionary, more: Iterable<string>): string[] {
  const extra = [...new Set(more)].filter((lexeme) => dictionary.slotOf(lexeme) < 0).sort();
  const merged: string[] = [];
  let j = 0;
  for (let slot = 0; slot < dictionary.size; slot++) {
    const lexeme = dictionary.lexemeAt(slot);
    while (j < extra.length && (extra[j] as string) < lexeme) merged.push(extra[j++] as string);
    merged.push(lexeme);
  }
  while (j < extra.length) merged.push(extra[j++] as string);
  return merged;
}
