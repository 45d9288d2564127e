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
  close?(): Promise<void>;
}
