import test from "ava";
import { idf } from "../../core/recall/bm25/bm25-parameters.js";
import { feedbackTerms } from "../../core/recall/prf/feedback-terms.js";
import { rocchioVector } from "../../core/recall/prf/rocchio-vector.js";

// Pseudo-relevance feedback's term choice (ADR 0570): relevance-model mass times idf, the query's own
// terms, workspace singletons and terms of too few feedback chunks left out, weights relative to the best.

const chunk = (weight: number, words: Record<string, number>) => ({
  weight,
  lexemes: Object.entries(words).map(([lexeme, tf]) => ({ lexeme, tf })),
});
const settings = { terms: 10, weight: 0.5, minChunks: 2, maxDfShare: 1 };

test("terms shared by the feedback chunks, rare ones first; query terms and singletons left out", (t) => {
  const chunks = [
    chunk(2, { zeppelin: 1, cutov: 2, rollback: 1, der: 3, einmalig: 1 }),
    chunk(1, { zeppelin: 1, cutov: 1, rollback: 1, der: 2 }),
  ];
  const df = new Map([
    ["cutov", 3],
    ["rollback", 5],
    ["der", 90],
    ["einmalig", 1],
  ]);
  const terms = feedbackTerms(chunks, df, 100, new Set(["zeppelin"]), settings);
  t.deepEqual(
    terms.map((x) => x.term),
    ["cutov", "rollback", "der"],
  );
  // The best term gets `weight` × its idf; the others in proportion to their mass × idf.
  t.is(terms[0]?.weight, 0.5 * idf(3, 100));
  t.true((terms[1]?.weight ?? 0) < 0.5 * idf(5, 100));
});

test("minChunks, maxDfShare and the number of terms bound the choice", (t) => {
  const chunks = [chunk(1, { a: 1, b: 1, c: 1 }), chunk(1, { a: 1, b: 1 }), chunk(1, { a: 1 })];
  const df = new Map([
    ["a", 40],
    ["b", 4],
    ["c", 4],
  ]);
  const pick = (s: Partial<typeof settings>) =>
    feedbackTerms(chunks, df, 100, new Set(), { ...settings, ...s }).map((x) => x.term);
  t.deepEqual(pick({ minChunks: 3 }), ["a"]);
  t.deepEqual(pick({ maxDfShare: 0.1 }), ["b"]);
  t.deepEqual(pick({ minChunks: 1, maxDfShare: 0.1 }).sort(), ["b", "c"]);
  t.is(pick({ terms: 1, minChunks: 1 }).length, 1);
  t.deepEqual(pick({ weight: 0 }), []);
});

test("Rocchio moves the unit query towards the feedback centroid and stays a unit vector", (t) => {
  const query = Float32Array.from([1, 0, 0]);
  const moved = rocchioVector(
    query,
    [
      { vector: Float32Array.from([0, 2, 0]), weight: 1 },
      { vector: Float32Array.from([0, 0, 5]), weight: 1 },
    ],
    1,
  );
  t.truthy(moved);
  const [x = 0, y = 0, z = 0] = moved ?? [];
  t.true(Math.abs(Math.hypot(x, y, z) - 1) < 1e-6);
  t.true(x > y && y > 0 && Math.abs(y - z) < 1e-6);
  t.is(rocchioVector(query, [], 1), undefined);
});
