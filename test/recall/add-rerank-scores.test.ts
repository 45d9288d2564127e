import test from "ava";
import fc from "fast-check";
import { addRerankScores, rerankContribution } from "../../core/recall/rerank/add-rerank-scores.js";

const head = fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 1, maxLength: 20 });

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

test("weight 0 keeps the first-stage order; any weight orders by fused + weight × the score above the median", (t) => {
  fc.assert(
    fc.property(head, fc.double({ min: 0, max: 1, noNaN: true }), (fusedScores, weight) => {
      const items = [...fusedScores].sort((a, b) => b - a).map((score, i) => ({ id: i, score }));
      const rerank = items.map((_, i) => (i * 7919) % 13);
      const kept = addRerankScores(items, rerank, 0).map((x) => x.id);
      if (!kept.every((id, i) => id === i)) return false;
      const out = addRerankScores(items, rerank, weight);
      return (
        out.length === items.length &&
        out.every((x, i) => i === 0 || (out[i - 1]?.score ?? 0) >= x.score) &&
        out.every(
          (x) =>
            Math.abs(
              x.score -
                ((items[x.id]?.score ?? 0) + weight * Math.max(0, (rerank[x.id] ?? 0) - median(rerank))),
            ) < 1e-12,
        )
      );
    }),
  );
  t.pass();
});

test("a missing score is an error, not a silent reorder", (t) => {
  t.throws(() => addRerankScores([{ score: 1 }, { score: 0.5 }], [1], 0.2), { message: /1 scores for 2/ });
});

test("the reranker never lowers a fused score, and leaves the lower half of its own scores alone", (t) => {
  fc.assert(
    fc.property(
      // Scores on a 1e-6 grid: a subnormal gap (5e-324 above the median) times the weight rounds to 0,
      // which says nothing about the reranker (fast-check found it).
      fc.array(
        fc.integer({ min: 0, max: 1_300_000 }).map((n) => n / 1e6),
        { minLength: 1, maxLength: 25 },
      ),
      (scores) => {
        const lift = rerankContribution(scores, 0.15);
        const m = median(scores);
        return lift.every((l, i) => l >= 0 && ((scores[i] ?? 0) <= m ? l === 0 : l > 0));
      },
    ),
  );
  t.pass();
});

test("a candidate covering clearly more of the query than the typical one overtakes a close fused lead", (t) => {
  const head = [0.5, 0.49, 0.3, 0.29, 0.28].map((score, id) => ({ id, score }));
  // Candidate 1 covers the whole query, the others about half: it passes candidate 0 (gap 0.01).
  const out = addRerankScores(head, [0.5, 1, 0.5, 0.4, 0.6], 0.15);
  t.deepEqual(
    out.map((x) => x.id),
    [1, 0, 2, 4, 3],
  );
  // Below the median (0.5) nothing moves: candidate 3's lower coverage does not push it down.
  t.is(out.find((x) => x.id === 3)?.score, 0.29);
});

test("a time-boosted head scales the lift like its scores: a uniform time factor leaves the order as without a time expression", (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          score: fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 1e6),
          rerank: fc.integer({ min: 0, max: 1_300_000 }).map((n) => n / 1e6),
        }),
        { minLength: 2, maxLength: 20 },
      ),
      fc.constantFrom(0.3, 0.5, 0.75),
      (rows, factor) => {
        const items = [...rows].sort((a, b) => b.score - a.score).map((r, id) => ({ id, ...r }));
        const rerank = items.map((x) => x.rerank);
        const plain = addRerankScores(items, rerank, 0.15).map((x) => x.id);
        // Every memory equally far from the query's interval (a year named in a question about content).
        const boosted = items.map((x) => ({ ...x, score: x.score * factor, timeFactor: factor }));
        const timed = addRerankScores(boosted, rerank, 0.15).map((x) => x.id);
        return plain.every((id, i) => id === timed[i]);
      },
    ),
  );
  t.pass();
});

test("the lift of a candidate far from the query's time shrinks with its time factor", (t) => {
  const head = [
    { id: "in-interval", score: 0.5, timeFactor: 1 },
    { id: "a-month-off", score: 0.45 * 0.3, timeFactor: 0.3 },
    { id: "filler", score: 0.1, timeFactor: 1 },
  ];
  // The month-off candidate covers the whole query: unscaled, its lift of 0.15 would carry it past.
  const out = addRerankScores(head, [0.2, 1.2, 0.2], 0.15);
  t.deepEqual(
    out.map((x) => x.id),
    ["in-interval", "a-month-off", "filler"],
  );
  t.true(Math.abs((out[1]?.score ?? 0) - (0.135 + 0.15 * 1 * 0.3)) < 1e-12);
});

test("a best-sentence cosine is added in full at its weight, scaled by the time factor like the lift", (t) => {
  const head = [
    { id: "a", score: 0.5 },
    { id: "b", score: 0.45 },
    { id: "c", score: 0.3, timeFactor: 0.5 },
  ];
  const flat = [0.2, 0.2, 0.2];
  const out = addRerankScores(head, flat, 0.15, { scores: [0.1, 0.4, 0.9], weight: 0.5 });
  t.deepEqual(
    out.map((x) => x.id),
    ["b", "a", "c"],
  );
  t.is(out.find((x) => x.id === "c")?.score, 0.3 + 0.5 * 0.9 * 0.5);
  t.throws(() => addRerankScores(head, flat, 0.15, { scores: [1], weight: 0.5 }), {
    message: /1 sentence scores for 3/,
  });
});
