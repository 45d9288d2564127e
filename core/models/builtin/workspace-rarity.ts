import type { QueryWord } from "./rerank-query.js";

const idf = (df: number, chunks: number) => Math.log(1 + (chunks - df + 0.5) / (df + 0.5));

/**
 * How rare a word is in this workspace, in (0, 1]: its BM25 idf over the idf of a word no chunk
 * holds. The dictionary's idf says how informative a word is in general language; in a workspace
 * about one subject its own words ("coronavirus" in a COVID FAQ) are in most chunks and tell them
 * apart no better than "the" (ADR 0640).
 */
export function workspaceRarity(documentFrequency: number, chunks: number): number {
  if (chunks <= 0) return 1;
  const df = Math.min(Math.max(0, documentFrequency), chunks);
  return idf(df, chunks) / idf(0, chunks);
}

/**
 * The query's words weighted by their workspace rarity as well; words without a figure (stop words
 * of the index's analyzer, or no figures at all) keep their weight.
 */
export function weighByWorkspace(
  words: readonly QueryWord[],
  documentFrequency: ReadonlyMap<string, number> | undefined,
  chunks: number | undefined,
): readonly QueryWord[] {
  if (documentFrequency === undefined || chunks === undefined || chunks <= 0) return words;
  return words.map((word) => {
    const df = documentFrequency.get(word.word);
    return df === undefined ? word : { ...word, weight: word.weight * workspaceRarity(df, chunks) };
  });
}
