/** A first-stage candidate handed to a reranker: the best chunk of one memory. */
export interface RerankCandidate {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly memoryType?: string;
  /** When the memory holds from (a conversation turn: when it was said): the recency of episodic memories. */
  readonly validFrom?: Date;
}

/** What a reranker may know of the workspace the candidates come from; providers may ignore it. */
export interface RerankContext {
  /** The workspace's current chunks (BM25's N). */
  readonly workspaceChunks?: number;
  /**
   * How many of those chunks hold each word of the query (lower-cased; stop words absent), as BM25
   * counts them: how common a word is in this workspace.
   */
  readonly wordDocumentFrequency?: ReadonlyMap<string, number> | undefined;
  /** The tenant asking: per-process caches are kept apart by it. */
  readonly tenantId?: string;
}

/** Scores candidates against a query; higher is better. Returns one score per candidate, in input order. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, candidates: readonly RerankCandidate[], context?: RerankContext): Promise<number[]>;
  /**
   * Per candidate, how closely its best sentence says what the query asks (a cosine, 0..1). Only the
   * built-in reranker has it; recall adds it in proportion to the vector channel's share (ADR 0630).
   */
  scoreBestSentences?(query: string, candidates: readonly RerankCandidate[]): Promise<number[]>;
  /**
   * Per candidate, the cosine of the query with its best sentence under a sentence encoder (ADR
   * 0760), or undefined where none applies (no encoder, a query in a language it does not read).
   */
  scoreSentencesSemantically?(
    query: string,
    candidates: readonly RerankCandidate[],
    context?: RerankContext,
  ): Promise<number[] | undefined>;
  close?(): Promise<void>;
}
