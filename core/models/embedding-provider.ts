/** Counts tokens the way the embedding model sees them; the chunker sizes chunks with it. */
export interface Tokenizer {
  countTokens(text: string): number;
}

/**
 * Whether a text is a search query or a stored passage. Asymmetric models (e5: "query: " / "passage: "
 * prefixes) and the built-in embedder's query expansion depend on it.
 */
export type EmbedPurpose = "query" | "passage";

/** Every stored vector has this many dimensions (spec: embedding dimension 1024); shorter ones are zero-padded. */
export const STORED_VECTOR_DIM = 1024;

/**
 * One embedding model. `id` names the embedding space (provider + model + native dimension); vectors of
 * different ids are never compared. Returned vectors are L2-normalised and `dim` long.
 */
export interface EmbeddingProvider {
  readonly id: string;
  readonly dim: number;
  readonly tokenizer: Tokenizer;
  embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]>;
  /**
   * True when concurrent calls are best kept apart rather than merged into one (coalesce-embed-calls.ts):
   * the built-in embedder on the calling thread takes calls in turns, text by text, so separate calls
   * finish one after another while a merged call finishes only with its last text.
   */
  readonly keepCallsApart?: boolean;
  close?(): Promise<void>;
}
