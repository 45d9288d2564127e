import { wordSpans } from "../../text/unspaced-scripts.js";

/**
 * The REST hit's `snippet` (spec "Recall result, REST"): the best chunk trimmed to a window around the
 * query's matches — the window of at most `maxChars` characters that holds the most distinct query terms
 * (then the most matches), widened to whole words, with "…" where text was cut.
 */
export interface SnippetOptions {
  /** Lexemes the query matched with (as the analyzer produced them). */
  readonly terms: ReadonlySet<string>;
  /** Maps a lower-cased word to its lexeme, the same way the index does. */
  readonly stem: (word: string) => string;
  readonly maxChars?: number;
}

const ELLIPSIS = "…";

interface Match {
  readonly start: number;
  readonly end: number;
  readonly term: string;
}

export function trimSnippet(text: string, options: SnippetOptions): string {
  const maxChars = options.maxChars ?? 320;
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= maxChars) return clean;
  const matches: Match[] = [];
  for (const span of wordSpans(clean)) {
    const word = span.word.toLowerCase();
    const term = options.terms.has(word) ? word : options.stem(word);
    if (options.terms.has(term)) matches.push({ start: span.start, end: span.end, term });
  }
  let bestStart = 0;
  if (matches.length > 0) {
    let best = { distinct: -1, count: -1 };
    // Each window starts at a match; two pointers keep the matches that end inside it.
    let last = 0;
    const counts = new Map<string, number>();
    for (let first = 0; first < matches.length; first++) {
      const from = matches[first]?.start ?? 0;
      if (last < first) {
        // A single word longer than the window: skip past it with an empty window.
        last = first;
        counts.clear();
      }
      while (last < matches.length && (matches[last]?.end ?? 0) - from <= maxChars) {
        const term = matches[last]?.term ?? "";
        counts.set(term, (counts.get(term) ?? 0) + 1);
        last++;
      }
      const score = { distinct: counts.size, count: last - first };
      if (score.distinct > best.distinct || (score.distinct === best.distinct && score.count > best.count)) {
        best = score;
        // Centre the matched span in the window, so the words before the first match give context.
        const span = (matches[last - 1]?.end ?? from) - from;
        bestStart = Math.max(0, from - Math.floor((maxChars - span) / 2));
      }
      const term = matches[first]?.term ?? "";
      const left = (counts.get(term) ?? 1) - 1;
      if (left === 0) counts.delete(term);
      else counts.set(term, left);
    }
  }
  let start = Math.min(bestStart, clean.length - maxChars);
  let end = start + maxChars;
  // Whole words only: move a cut that falls inside a word to the word's edge.
  if (start > 0) {
    const space = clean.indexOf(" ", start);
    start = space >= 0 && space < end ? space + 1 : start;
  }
  if (end < clean.length) {
    const space = clean.lastIndexOf(" ", end);
    end = space > start ? space : end;
  }
  return `${start > 0 ? ELLIPSIS : ""}${clean.slice(start, end).trim()}${end < clean.length ? ELLIPSIS : ""}`;
}
