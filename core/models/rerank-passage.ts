import type { RerankCandidate } from "./reranker.js";

/**
 * The text a reranker scores for a candidate: its title on the first line, then the chunk — the title often
 * carries the topic words a chunk from the middle of a document lacks. Not repeated when the chunk already
 * starts with it.
 */
export function rerankPassage(candidate: RerankCandidate): string {
  const title = candidate.title.trim();
  if (title === "" || candidate.text.trimStart().startsWith(title)) return candidate.text;
  return `${title}\n${candidate.text}`;
}
