/** A query lexeme with its weight in the BM25 sum (query weight × idf). */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** A chunk and its BM25 score; equal scores are ordered by chunk id. */
export interface ScoredChunk {
  readonly chunkId: string;
  readonly score: number;
}
