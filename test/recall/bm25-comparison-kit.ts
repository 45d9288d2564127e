/**
 * Shared by the tests that compare two BM25 designs: a deterministic corpus of frequent terms and
 * ties, and a canonical form of ranked hits that two summation orders must agree on.
 */

/** A deterministic pseudo-random sentence of 3 to 2 + maxExtra words from `words`. */
export function pseudoSentence(seed: number, words: readonly string[], maxExtra: number): string {
  let x = (seed * 2654435761) >>> 0;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x >>> 8;
  };
  const n = 3 + (next() % maxExtra);
  return Array.from({ length: n }, () => words[next() % words.length]).join(" ");
}

/**
 * Hits as "score|chunk id" with scores rounded to 9 digits, sorted; the tie group at the cut dropped.
 * Scores equal in exact arithmetic may differ in the last bits between two summation orders, so equal
 * scores are compared as sets ordered by chunk id; a tie group cut by k is left out (either design
 * may keep other members of it).
 */
export function canonicalHits(hits: readonly { chunkId: string; score: number }[]): string[] {
  const rounded = hits.map((h) => ({ key: h.score.toPrecision(9), id: h.chunkId }));
  const last = rounded[rounded.length - 1]?.key;
  return rounded
    .filter((h) => h.key !== last)
    .sort((a, b) => Number(b.key) - Number(a.key) || (a.id < b.id ? -1 : 1))
    .map((h) => `${h.key}|${h.id}`);
}
