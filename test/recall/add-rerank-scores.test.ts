import test from "ava";
import fc from "fast-check";
import { addRerankScores } from "../../core/recall/rerank/add-rerank-scores.js";

const head = fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 1, maxLength: 20 });

test("weight 0 keeps the first-stage order; any weight orders by fused + weight × rerank score", (t) => {
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
          (x) => Math.abs(x.score - ((items[x.id]?.score ?? 0) + weight * (rerank[x.id] ?? 0))) < 1e-12,
        )
      );
    }),
  );
  t.pass();
});

test("a missing score is an error, not a silent reorder", (t) => {
  t.throws(() => addRerankScores([{ score: 1 }, { score: 0.5 }], [1], 0.2), { message: /1 scores for 2/ });
});
