import test from "ava";
import fc from "fast-check";
import { BUILTIN_EMBEDDER_ID } from "../../core/models/builtin/create-builtin-embedder.js";
import {
  channelShareWeights,
  fulltextShare,
  fuseCalibratedScores,
  type ScoredFulltextHit,
  type ScoredVectorHit,
  vectorMargin,
} from "../../core/recall/fuse/fuse-calibrated-scores.js";

// Score fusion with calibrated channels and a query-dependent share (docs/recall.md "Fusion").

const ids = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { maxLength: 8 });
/** A channel's hits, best first: distinct memories with strictly decreasing scores. */
const fulltextOf = (memories: readonly string[], scores: readonly number[]): ScoredFulltextHit[] => {
  const sorted = [...scores].sort((x, y) => y - x);
  return memories.map((m, i) => ({
    memoryId: m,
    chunkId: `${m}-f`,
    score: (sorted[i] ?? 0) + (memories.length - i),
  }));
};
const vectorOf = (memories: readonly string[], distances: readonly number[]): ScoredVectorHit[] => {
  const sorted = [...distances].sort((x, y) => x - y);
  return memories.map((m, i) => ({
    memoryId: m,
    chunkId: `${m}-v`,
    distance: Math.min(1, (sorted[i] ?? 0) + i * 0.01),
  }));
};
const scores = fc.array(fc.double({ min: 0, max: 20, noNaN: true }), { minLength: 8, maxLength: 8 });
const distances = fc.array(fc.double({ min: 0, max: 0.9, noNaN: true }), { minLength: 8, maxLength: 8 });

test("every memory appears once; a share of 1 is full text's order, 0 the vector channel's", (t) => {
  fc.assert(
    fc.property(ids, ids, scores, distances, (f, v, s, d) => {
      const fulltext = fulltextOf(f, s);
      const vector = vectorOf(v, d);
      const maxScore = 100;
      const fused = fuseCalibratedScores(fulltext, maxScore, vector, 0.5);
      if (fused.length !== new Set([...f, ...v]).size) return false;
      const onlyFulltext = fuseCalibratedScores(fulltext, maxScore, vector, 1).map((m) => m.memoryId);
      const onlyVector = fuseCalibratedScores(fulltext, maxScore, vector, 0).map((m) => m.memoryId);
      return f.every((m, i) => onlyFulltext[i] === m) && v.every((m, i) => onlyVector[i] === m);
    }),
  );
  t.pass();
});

test("raising a memory's BM25 score never moves it down", (t) => {
  fc.assert(
    fc.property(
      ids.filter((f) => f.length > 1),
      ids,
      scores,
      distances,
      fc.double({ min: 0, max: 1, noNaN: true }),
      (f, v, s, d, share) => {
        const fulltext = fulltextOf(f, s);
        const vector = vectorOf(v, d);
        const target = f[f.length - 1] ?? "a";
        const before = fuseCalibratedScores(fulltext, 100, vector, share).findIndex(
          (m) => m.memoryId === target,
        );
        const boosted = fulltext.map((h) => (h.memoryId === target ? { ...h, score: h.score + 10 } : h));
        const after = fuseCalibratedScores(boosted, 100, vector, share).findIndex(
          (m) => m.memoryId === target,
        );
        return after <= before;
      },
    ),
  );
  t.pass();
});

test("full text's share grows with vocabulary coverage and falls with the vector margin", (t) => {
  const weights = channelShareWeights(`${BUILTIN_EMBEDDER_ID}-fd88196c`);
  if (weights === undefined) return t.fail("the built-in embedder is calibrated");
  t.is(channelShareWeights("onnx:bge-m3:1024"), undefined, "other embedders fuse by rank");
  fc.assert(
    fc.property(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 0.5, noNaN: true }),
      fc.double({ min: 0, max: 0.5, noNaN: true }),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 0, max: 1_000_000 }),
      (c1, c2, m1, m2, n1, n2) => {
        const a = fulltextShare(weights, { coverage: Math.min(c1, c2), vectorMargin: m1, chunkCount: 1_000 });
        const b = fulltextShare(weights, { coverage: Math.max(c1, c2), vectorMargin: m1, chunkCount: 1_000 });
        const c = fulltextShare(weights, { coverage: c1, vectorMargin: Math.max(m1, m2), chunkCount: 1_000 });
        const e = fulltextShare(weights, { coverage: c1, vectorMargin: Math.min(m1, m2), chunkCount: 1_000 });
        // A larger workspace never gives the vector channel more say (ADR 0496).
        const small = fulltextShare(weights, {
          coverage: c1,
          vectorMargin: m1,
          chunkCount: Math.min(n1, n2),
        });
        const large = fulltextShare(weights, {
          coverage: c1,
          vectorMargin: m1,
          chunkCount: Math.max(n1, n2),
        });
        return a > 0 && b < 1 && a <= b && c <= e && small <= large;
      },
    ),
  );
  // A query in the memories' language with no standout vector hit: BM25 leads; across languages with
  // a clear paraphrase: the vector channel leads.
  t.true(fulltextShare(weights, { coverage: 1, vectorMargin: 0.03, chunkCount: 1_000 }) > 0.6);
  t.true(fulltextShare(weights, { coverage: 0.1, vectorMargin: 0.2, chunkCount: 1_000 }) < 0.2);
});

test("the vector margin is taken between the first two memories", (t) => {
  t.is(vectorMargin([]), 0);
  t.is(vectorMargin([{ memoryId: "a", chunkId: "1", distance: 0.3 }]), 0);
  const margin = vectorMargin([
    { memoryId: "a", chunkId: "1", distance: 0.3 },
    { memoryId: "a", chunkId: "2", distance: 0.35 },
    { memoryId: "b", chunkId: "3", distance: 0.5 },
  ]);
  t.true(Math.abs(margin - 0.2) < 1e-12);
});

test("a memory both channels rank well beats one only a channel ranks first", (t) => {
  const fused = fuseCalibratedScores(
    [
      { memoryId: "lexical", chunkId: "l", score: 10 },
      { memoryId: "both", chunkId: "b", score: 9 },
    ],
    20,
    [
      { memoryId: "semantic", chunkId: "s", distance: 0.3 },
      { memoryId: "both", chunkId: "b", distance: 0.32 },
    ],
    0.5,
  );
  t.is(fused[0]?.memoryId, "both");
  t.deepEqual(fused[0]?.ranks, { fulltext: 2, vector: 2 });
});
