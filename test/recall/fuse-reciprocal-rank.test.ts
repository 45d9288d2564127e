import test from "ava";
import fc from "fast-check";
import {
  fuseReciprocalRank,
  type RankedChannel,
  RRF_K,
} from "../../core/recall/fuse/fuse-reciprocal-rank.js";

const memoryIds = fc.uniqueArray(fc.constantFrom<string>("a", "b", "c", "d", "e", "f", "g", "h"), {
  maxLength: 8,
});
const channelsOf = (
  fulltext: readonly string[],
  vector: readonly string[],
  wf = 1,
  wv = 1,
): RankedChannel[] => [
  { name: "fulltext", weight: wf, hits: fulltext.map((m) => ({ memoryId: m, chunkId: `${m}-f` })) },
  { name: "vector", weight: wv, hits: vector.map((m) => ({ memoryId: m, chunkId: `${m}-v` })) },
];

test("every memory appears once, scored Σ weight / (k + rank), best first", (t) => {
  fc.assert(
    fc.property(
      memoryIds,
      memoryIds,
      fc.double({ min: 0.1, max: 3, noNaN: true }),
      (fulltext, vector, wv) => {
        const fused = fuseReciprocalRank(channelsOf(fulltext, vector, 1, wv));
        const all = new Set([...fulltext, ...vector]);
        t.is(fused.length, all.size);
        for (const f of fused) {
          const rf = fulltext.indexOf(f.memoryId);
          const rv = vector.indexOf(f.memoryId);
          const expected = (rf >= 0 ? 1 / (RRF_K + rf + 1) : 0) + (rv >= 0 ? wv / (RRF_K + rv + 1) : 0);
          t.true(Math.abs(f.score - expected) < 1e-12);
          t.is(f.ranks.fulltext, rf >= 0 ? rf + 1 : undefined);
        }
        for (let i = 1; i < fused.length; i++) t.true((fused[i - 1]?.score ?? 0) >= (fused[i]?.score ?? 0));
      },
    ),
  );
});

test("moving a memory up in one channel never moves it down in the fusion", (t) => {
  fc.assert(
    fc.property(
      memoryIds.filter((m) => m.length >= 2),
      memoryIds,
      fc.nat(),
      (fulltext, vector, pick) => {
        const index = 1 + (pick % (fulltext.length - 1));
        const moved = fulltext[index] ?? "";
        const promoted = [...fulltext];
        promoted.splice(index, 1);
        promoted.splice(index - 1, 0, moved);
        const before = fuseReciprocalRank(channelsOf(fulltext, vector)).findIndex(
          (f) => f.memoryId === moved,
        );
        const after = fuseReciprocalRank(channelsOf(promoted, vector)).findIndex((f) => f.memoryId === moved);
        t.true(after <= before);
      },
    ),
  );
});

test("a memory first in both channels is first; only later chunks of a memory do not count", (t) => {
  const fused = fuseReciprocalRank([
    {
      name: "fulltext",
      weight: 1,
      hits: [
        { memoryId: "x", chunkId: "x1" },
        { memoryId: "y", chunkId: "y1" },
        { memoryId: "x", chunkId: "x2" },
      ],
    },
    {
      name: "vector",
      weight: 1,
      hits: [
        { memoryId: "x", chunkId: "x3" },
        { memoryId: "z", chunkId: "z1" },
      ],
    },
  ]);
  t.deepEqual(
    fused.map((f) => f.memoryId),
    ["x", "y", "z"],
  );
  t.is(fused[0]?.chunkId, "x1", "the full-text chunk stands for a memory both channels rank first");
  t.is(fused[1]?.ranks.fulltext, 2, "y is the second memory of the full-text list, not its second chunk");
});
