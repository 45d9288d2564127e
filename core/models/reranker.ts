/** A first-stage candidate handed to a reranker: the best chunk of one memory. */
export interface RerankCandidate {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly memoryType?: string;
  readonly createdAt?: Date;
}

/** Scores candidates against a query; higher is better. Returns one score per candidate, in input order. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, candidates: readonly RerankCandidate[]): Promise<number[]>;
  close?(): Promise<void>;
}
