import { isRecord } from "../read-json-file.js";

/**
 * Vectors from an OpenAI-style embeddings answer `{ data: [{ index, embedding: number[] }] }`, in input
 * order (`data` is sorted by `index`; servers may answer out of order). Returns a description of what is
 * wrong instead when the answer does not hold exactly `count` finite vectors of one length.
 */
export function parseEmbeddingsResponse(body: unknown, count: number): Float32Array[] | string {
  if (!isRecord(body) || !Array.isArray(body.data)) return "answer has no data array";
  const items: unknown[] = body.data;
  if (items.length !== count) return `answer has ${items.length} embeddings for ${count} inputs`;
  const vectors = new Array<Float32Array | undefined>(count);
  for (const [position, item] of items.entries()) {
    if (!isRecord(item) || !Array.isArray(item.embedding)) return `data[${position}] has no embedding array`;
    const index = item.index === undefined ? position : item.index;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count) {
      return `data[${position}] has an invalid index`;
    }
    if (vectors[index] !== undefined) return `index ${index} appears twice`;
    const values: unknown[] = item.embedding;
    if (!values.every((value): value is number => typeof value === "number" && Number.isFinite(value))) {
      return `embedding ${index} contains a value that is not a finite number`;
    }
    vectors[index] = Float32Array.from(values as number[]);
  }
  const dims = new Set(vectors.map((vector) => vector?.length));
  if (dims.size !== 1) return "embeddings differ in length";
  return vectors as Float32Array[];
}
