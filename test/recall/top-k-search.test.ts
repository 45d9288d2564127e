import test from "ava";
import fc from "fast-check";
import { tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { createTopKSearch, type Posting, type WeightedTerm } from "../../core/recall/bm25/top-k-search.js";

interface Doc {
  readonly id: string;
  readonly len: number;
  readonly tfs: readonly number[];
}

/** Runs the search against in-memory lists, as search-bm25.ts does against PostgreSQL. */
function runSearch(
  docs: readonly Doc[],
  weights: readonly number[],
  k: number,
  avgdl: number,
  keyAvgdl: number,
) {
  const terms: WeightedTerm[] = weights.map((weight, t) => ({ term: `t${t}`, weight }));
  const lists = terms.map((_, t) =>
    docs
      .filter((d) => (d.tfs[t] ?? 0) > 0)
      .map((d): Posting => {
        const tf = d.tfs[t] ?? 0;
        return { chunkId: d.id, tf, docLen: d.len, impact: Math.fround(tfPart(tf, d.len, keyAvgdl)) };
      })
      .sort((a, b) => b.impact - a.impact || (a.chunkId < b.chunkId ? -1 : 1)),
  );
  const search = createTopKSearch(terms, { k, avgdl, keyAvgdl, initialDepth: 2 });
  for (let reads = search.nextReads(); reads.length > 0; reads = search.nextReads()) {
    for (const read of reads)
      search.addPage(read, lists[read.termIndex]?.slice(read.offset, read.offset + read.limit) ?? []);
  }
  for (
    let request = search.pendingLookups(3);
    request.chunkIds.length > 0;
    request = search.pendingLookups(3)
  ) {
    const rows = request.chunkIds.flatMap((chunkId) => {
      const doc = docs.find((d) => d.id === chunkId);
      return request.termIndexes
        .filter((t) => (doc?.tfs[t] ?? 0) > 0)
        .map((termIndex) => ({ chunkId, termIndex, tf: doc?.tfs[termIndex] ?? 0, docLen: doc?.len ?? 0 }));
    });
    search.addLookups(request, rows);
  }
  return { results: search.results(), stats: search.stats(), lists };
}

function bruteForce(docs: readonly Doc[], weights: readonly number[], avgdl: number) {
  return docs
    .map((d) => ({
      chunkId: d.id,
      score: weights.reduce((sum, w, t) => sum + w * tfPart(d.tfs[t] ?? 0, d.len, avgdl), 0),
    }))
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score);
}

const corpus = fc
  .record({
    termCount: fc.integer({ min: 1, max: 5 }),
    docs: fc.array(
      fc.record({
        len: fc.integer({ min: 1, max: 200 }),
        tfs: fc.array(fc.nat({ max: 6 }), { minLength: 5, maxLength: 5 }),
      }),
      { minLength: 0, maxLength: 60 },
    ),
  })
  .map(({ termCount, docs }) => ({
    termCount,
    docs: docs.map((d, i) => ({
      id: `c${String(i).padStart(3, "0")}`,
      len: d.len,
      tfs: d.tfs.slice(0, termCount),
    })),
  }));

test("the threshold search returns exactly the brute-force top k, whatever the drift of the impact key", (t) => {
  fc.assert(
    fc.property(
      corpus,
      fc.array(fc.double({ min: 0.01, max: 8, noNaN: true }), { minLength: 5, maxLength: 5 }),
      fc.integer({ min: 1, max: 12 }),
      fc.double({ min: 0.2, max: 5, noNaN: true }),
      ({ termCount, docs }, allWeights, k, drift) => {
        const weights = allWeights.slice(0, termCount);
        const avgdl = docs.length > 0 ? docs.reduce((s, d) => s + d.len, 0) / docs.length : 1;
        const { results } = runSearch(docs, weights, k, avgdl, avgdl * drift);
        const expected = bruteForce(docs, weights, avgdl).slice(0, k);
        t.is(results.length, expected.length);
        results.forEach((r, i) => {
          // Same scores in the same order; which of two equal scores comes first may differ.
          t.true(Math.abs(r.score - (expected[i]?.score ?? Number.NaN)) < 1e-9);
          const own = bruteForce(docs, weights, avgdl).find((e) => e.chunkId === r.chunkId);
          t.true(Math.abs(r.score - (own?.score ?? Number.NaN)) < 1e-9);
        });
      },
    ),
    { numRuns: 300 },
  );
});

test("a rare term with a large weight ends the search before a frequent term's list is read through", (t) => {
  const docs: Doc[] = [];
  for (let i = 0; i < 2000; i++) {
    const rare = i % 400 === 0 ? 2 : 0;
    docs.push({ id: `c${String(i).padStart(5, "0")}`, len: 40 + (i % 17), tfs: [rare, 1 + (i % 3)] });
  }
  const { results, stats } = runSearch(docs, [9, 0.2], 5, 48, 48);
  t.deepEqual(
    results.map((r) => r.chunkId),
    bruteForce(docs, [9, 0.2], 48)
      .slice(0, 5)
      .map((r) => r.chunkId),
  );
  t.true(stats.exact);
  t.true(stats.postingsRead < 200, `read ${stats.postingsRead} postings`);
});

test("no terms, or terms nothing contains, give no results", (t) => {
  t.deepEqual(runSearch([], [], 5, 10, 10).results, []);
  t.deepEqual(runSearch([{ id: "a", len: 3, tfs: [0] }], [1], 5, 3, 3).results, []);
});
