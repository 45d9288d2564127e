import test from "ava";
import { l2NormalizeInPlace } from "../../core/models/l2-normalize.js";
import { batchByLength } from "../../core/models/onnx/batch-by-length.js";
import { poolTokenStates } from "../../core/models/onnx/pool-token-states.js";
import { padToStoredDim } from "../../core/models/pad-to-stored-dim.js";

// Two sequences, padded to 3 positions, hidden size 2. Row 1 has one real token; its padding holds 99s.
const states = Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8, 99, 99, 99, 99);
const dims = [2, 3, 2];

test("mean pooling averages only the real tokens", (t) => {
  const [a, b] = poolTokenStates(states, dims, [3, 1], "mean");
  t.deepEqual(Array.from(a ?? []), [3, 4]);
  t.deepEqual(Array.from(b ?? []), [7, 8]);
});

test("cls pooling takes the first position", (t) => {
  const [a, b] = poolTokenStates(states, dims, [3, 1], "cls");
  t.deepEqual(Array.from(a ?? []), [1, 2]);
  t.deepEqual(Array.from(b ?? []), [7, 8]);
});

test("max pooling ignores padding", (t) => {
  const [a, b] = poolTokenStates(states, dims, [2, 1], "max");
  t.deepEqual(Array.from(a ?? []), [3, 4]);
  t.deepEqual(Array.from(b ?? []), [7, 8]);
});

test("a shape that does not match the batch is refused", (t) => {
  t.throws(() => poolTokenStates(states, [2, 6], [3, 1], "mean"), { instanceOf: RangeError });
  t.throws(() => poolTokenStates(states, dims, [3], "mean"), { instanceOf: RangeError });
});

test("l2 normalisation gives unit length and leaves a zero vector at zero", (t) => {
  t.deepEqual(Array.from(l2NormalizeInPlace(Float32Array.of(3, 4))), [0.6000000238418579, 0.800000011920929]);
  t.deepEqual(Array.from(l2NormalizeInPlace(new Float32Array(3))), [0, 0, 0]);
});

test("vectors are zero-padded to the stored dimension; longer ones are refused", (t) => {
  const padded = padToStoredDim(Float32Array.of(0.6, 0.8), 4);
  t.deepEqual(Array.from(padded), [0.6000000238418579, 0.800000011920929, 0, 0]);
  t.is(padToStoredDim(new Float32Array(1024)).length, 1024);
  t.is(padToStoredDim(new Float32Array(384)).length, 1024);
  t.throws(() => padToStoredDim(new Float32Array(1536)), { instanceOf: RangeError });
});

test("batches group similar lengths, longest first, every index exactly once", (t) => {
  t.deepEqual(batchByLength([3, 10, 1, 7, 7], 2), [[1, 3], [4, 0], [2]]);
  t.deepEqual(batchByLength([], 4), []);
});
