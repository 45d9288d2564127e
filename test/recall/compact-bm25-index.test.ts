import test from "ava";
import fc from "fast-check";
import { B, idf, tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { buildCompactBm25Index, type LexemeRow } from "../../core/recall/bm25/compact-bm25-index.js";

// The derived in-process BM25 index of ADR 0230: exact BM25 (the formula recall's SQL design uses),
// ties by chunk id, and a per-query allowed-chunk set applied before top k (issue #22 filters).

const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** BM25 by the definition, chunk by chunk: the reference the index must equal. */
function bruteForce(
  rows: readonly LexemeRow[],
  terms: { term: string; weight: number }[],
  avgdl: number,
  k: number,
  allowed?: Set<string>,
) {
  const byChunk = new Map<string, Map<string, number>>();
  for (const r of rows) byChunk.set(r.chunkId, (byChunk.get(r.chunkId) ?? new Map()).set(r.lexeme, r.tf));
  const scored = [...byChunk]
    .filter(([chunkId]) => !allowed || allowed.has(chunkId))
    .map(([chunkId, tfs]) => {
      const len = [...tfs.values()].reduce((a, b) => a + b, 0);
      const score = terms.reduce(
        (sum, t) => sum + t.weight * tfPart(tfs.get(t.term) ?? 0, len, { avgdl, b: B }),
        0,
      );
      return { chunkId, score };
    })
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : 1));
  return scored.slice(0, k);
}

const corpus = fc.array(
  fc.record({
    chunk: fc.integer({ min: 0, max: 40 }),
    lexeme: fc.constantFrom("hund", "katz", "buro", "regel", "milch", "mehl", "ei"),
    tf: fc.integer({ min: 1, max: 5 }),
  }),
  { minLength: 1, maxLength: 200 },
);

function dedupe(raw: { chunk: number; lexeme: string; tf: number }[]): LexemeRow[] {
  const seen = new Map<string, LexemeRow>();
  for (const r of raw)
    seen.set(`${r.chunk}:${r.lexeme}`, { chunkId: id(r.chunk), lexeme: r.lexeme, tf: r.tf });
  return [...seen.values()];
}

test("top k equals BM25 computed chunk by chunk, scores and order", (t) => {
  fc.assert(
    fc.property(
      corpus,
      fc.subarray(["hund", "katz", "buro", "regel", "ei", "fehlt"], { minLength: 1 }),
      fc.integer({ min: 1, max: 12 }),
      (raw, words, k) => {
        const rows = dedupe(raw);
        const chunks = new Set(rows.map((r) => r.chunkId)).size;
        const total = rows.reduce((s, r) => s + r.tf, 0);
        const avgdl = total / chunks;
        const terms = words.map((term) => ({
          term,
          weight: idf(rows.filter((r) => r.lexeme === term).length, chunks),
        }));
        const index = buildCompactBm25Index(rows);
        const got = index.search(terms, { avgdl, b: B }, k);
        const want = bruteForce(rows, terms, avgdl, k);
        t.deepEqual(
          got.map((h) => h.chunkId),
          want.map((h) => h.chunkId),
        );
        for (const [i, h] of got.entries()) t.true(Math.abs(h.score - (want[i]?.score ?? 0)) < 1e-9);
      },
    ),
    { numRuns: 200 },
  );
});

test("an allowed-chunk set restricts before top k: the best allowed chunks, not a filtered top k", (t) => {
  const rows: LexemeRow[] = [];
  for (let i = 0; i < 30; i++) rows.push({ chunkId: id(i), lexeme: "hund", tf: 30 - i });
  const index = buildCompactBm25Index(rows);
  const allowedIds = [id(25), id(27), id(29), id(3)];
  const hits = index.search([{ term: "hund", weight: 1 }], { avgdl: 15, b: B }, 3, index.allow(allowedIds));
  t.deepEqual(
    hits.map((h) => h.chunkId),
    [id(3), id(25), id(27)],
  );
  t.deepEqual(index.search([{ term: "hund", weight: 1 }], { avgdl: 15, b: B }, 3, index.allow([])), []);
  // Repeated searches start from clean accumulators.
  t.deepEqual(
    index.search([{ term: "hund", weight: 1 }], { avgdl: 15, b: B }, 2).map((h) => h.chunkId),
    [id(0), id(1)],
  );
});
