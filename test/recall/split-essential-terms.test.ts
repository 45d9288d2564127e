import test from "ava";
import fc from "fast-check";
import { splitEssentialTerms } from "../../core/recall/bm25/split-essential-terms.js";
import { spreadGraphScores } from "../../core/recall/graph/spread-graph-scores.js";

test("MaxScore's split: the non-essential terms' bounds sum to at most the threshold, and no essential term could join them", (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { maxLength: 8 }),
      fc.double({ min: 0, max: 30, noNaN: true }),
      (bounds, threshold) => {
        const { essential, nonEssentialBound } = splitEssentialTerms(bounds, threshold);
        const rest = bounds.filter((_, i) => !essential[i]);
        t.true(Math.abs(rest.reduce((a, b) => a + b, 0) - nonEssentialBound) < 1e-9);
        t.true(nonEssentialBound <= threshold);
        const smallestEssential = Math.min(...bounds.filter((_, i) => essential[i]));
        t.true(!Number.isFinite(smallestEssential) || nonEssentialBound + smallestEssential > threshold);
      },
    ),
  );
});

test("graph neighbours enter with the decayed score of the node they were reached from", (t) => {
  const spread = spreadGraphScores(new Map([["seed", 1]]), [
    { memoryId: "two", hops: 2, fromId: "one" },
    { memoryId: "one", hops: 1, fromId: "seed" },
    { memoryId: "orphan", hops: 1, fromId: "unknown" },
  ]);
  t.deepEqual(spread, [
    { memoryId: "one", score: 0.5, hops: 1 },
    { memoryId: "two", score: 0.25, hops: 2 },
  ]);
});
