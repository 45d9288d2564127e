import { isRecord } from "../read-json-file.js";

/**
 * Scores in input order from either rerank answer shape: Text Embeddings Inference's
 * `[{ index, score }]`, Cohere's / Jina's `{ results: [{ index, relevance_score }] }` or Voyage's
 * `{ data: [{ index, relevance_score }] }`. Returns a
 * description of the problem instead when not every input got exactly one finite score.
 */
export function parseRerankResponse(body: unknown, count: number): number[] | string {
  const items: unknown = Array.isArray(body)
    ? body
    : isRecord(body)
      ? (body.results ?? body.data)
      : undefined;
  if (!Array.isArray(items)) return "answer is neither a list of scores nor has a results list";
  const scores = new Array<number | undefined>(count);
  for (const [position, item] of items.entries()) {
    if (!isRecord(item)) return `result ${position} is not an object`;
    const { index } = item;
    const score = item.relevance_score ?? item.score;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count) {
      return `result ${position} has an invalid index`;
    }
    if (typeof score !== "number" || !Number.isFinite(score)) return `result ${position} has no finite score`;
    if (scores[index] !== undefined) return `index ${index} is scored twice`;
    scores[index] = score;
  }
  // Indices are distinct and in range, so `count` of them cover every passage.
  if (items.length !== count) return `answer scores ${items.length} of ${count} passages`;
  return scores as number[];
}
