import test from "ava";
import { BUILTIN_EMBEDDER_ID } from "../../core/models/builtin/create-builtin-embedder.js";
import { fuseReciprocalRank } from "../../core/recall/fuse/fuse-reciprocal-rank.js";
import { vectorChannelWeight, vectorLeadDistance } from "../../core/recall/fuse/vector-lead-weight.js";

// The vector channel leads fusion only for a near-paraphrase best hit, and only for models whose
// distances were calibrated (docs/recall.md "Fusion").

test("only calibrated embedders have a lead distance", (t) => {
  t.is(vectorLeadDistance(`${BUILTIN_EMBEDDER_ID}-fd88196c`), 0.65);
  t.is(vectorLeadDistance("onnx:bge-m3:1024"), undefined);
  t.is(vectorLeadDistance("http:text-embedding-3-large"), undefined);
});

test("weight is the base weight far from the threshold, fades in below it, and is capped", (t) => {
  t.is(vectorChannelWeight(1, undefined, 0.1), 1, "uncalibrated model: plain RRF");
  t.is(vectorChannelWeight(1, 0.65, undefined), 1, "no vector hit");
  t.is(vectorChannelWeight(1, 0.65, 0.8), 1, "a loose match does not lead");
  t.is(vectorChannelWeight(1, 0.65, 0.65), 1, "at the threshold the lead starts");
  const halfway = vectorChannelWeight(1, 0.65, 0.64);
  t.true(halfway > 1 && halfway < vectorChannelWeight(1, 0.65, 0.63));
  t.is(vectorChannelWeight(1, 0.65, 0.2), vectorChannelWeight(1, 0.65, 0.5), "full lead is capped");
  t.is(vectorChannelWeight(2, 0.65, 0.2), 2 * vectorChannelWeight(1, 0.65, 0.2), "scales the base weight");
});

test("with a full lead the vector channel's first hit beats full text's first", (t) => {
  // "keyword": full text's first, the vector channel's fourth; "paraphrase": the vector channel's
  // first, unseen by full text.
  const order = (vectorWeight: number) =>
    fuseReciprocalRank([
      { name: "fulltext", weight: 1, hits: [{ memoryId: "keyword", chunkId: "k" }] },
      {
        name: "vector",
        weight: vectorWeight,
        hits: ["paraphrase", "x", "y", "keyword"].map((memoryId) => ({ memoryId, chunkId: memoryId })),
      },
    ]).map((m) => m.memoryId);
  t.is(order(vectorChannelWeight(1, 0.65, 0.9))[0], "keyword", "plain RRF: found by both wins");
  t.is(order(vectorChannelWeight(1, 0.65, 0.3))[0], "paraphrase", "near-paraphrase: the vector order leads");
});
