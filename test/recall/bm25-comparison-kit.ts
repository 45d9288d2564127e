import type { ExecutionContext } from "ava";

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

type Ranked = { readonly hits: readonly { chunkId: string; score: number }[] };

/** Two designs ranked the same: as many hits, scores equal to 1e-9, the same chunks in the same order. */
export function assertSameRanking(t: ExecutionContext, got: Ranked, want: Ranked, label: string): void {
  t.is(got.hits.length, want.hits.length, label);
  for (const [i, hit] of got.hits.entries()) {
    const expected = want.hits[i]?.score ?? Number.NaN;
    t.true(Math.abs(hit.score - expected) <= 1e-9 * Math.max(1, expected), `${label}: score ${i}`);
  }
  t.deepEqual(canonicalHits(got.hits), canonicalHits(want.hits), `${label}: same chunks, same order`);
}

/** The index answered every search of a test, at least once by the path the test's case aims at. */
export function assertIndexAnswered(t: ExecutionContext, paths: ReadonlySet<string>, path: string): void {
  t.true(paths.has(path), `the index answered by ${path} (saw ${[...paths].join(", ")})`);
  t.true(
    [...paths].every((p) => p.startsWith("index")),
    "never fell back to SQL",
  );
}
