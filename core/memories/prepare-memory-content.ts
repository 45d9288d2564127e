import type { EmbeddingProvider } from "../models/embedding-provider.js";
import { chunkText } from "../text/chunk-text.js";

/** One chunk ready to store: the document slice plus the text that is indexed for it. */
export interface PreparedChunk {
  readonly ordinal: number;
  /** `content.slice(charStart, charEnd)`: what recall shows. */
  readonly text: string;
  readonly charStart: number;
  readonly charEnd: number;
  readonly tokenCount: number;
  /** What the tsvector and the embedding are computed from (the chunk, headed by a given title). */
  readonly indexText: string;
}

/** Chunks and their vectors, computed before any transaction opens (CPU work, possibly remote). */
export interface PreparedContent {
  readonly chunks: readonly PreparedChunk[];
  /** One vector per chunk, same order. */
  readonly vectors: readonly Float32Array[];
  /** The embedding space (`embedder.id`) the vectors belong to. */
  readonly space: string;
}

export interface ContentToPrepare {
  readonly title: string;
  readonly content: string;
}

/**
 * The line that heads every chunk's index text: the title, so a short memory is found by its title —
 * unless the content already starts with it (a derived title is the first line and would only repeat
 * it). A pure function of the stored title and content, so the worker and reconcile rebuild exactly
 * the index text the request path used.
 */
export function indexHeader(title: string, content: string): string {
  const start = content.trimStart().replace(/^#{1,6}\s+/, "");
  // A derived title of a long first line is cut and ends with "…".
  const prefix = title.endsWith("…") ? title.slice(0, -1) : title;
  return prefix.length > 0 && !start.startsWith(prefix) ? `${title}\n\n` : "";
}

/** Splits the content into ≈500-token chunks (spec "Chunk size") and indexes each one. */
export function chunkContent(input: ContentToPrepare, embedder: EmbeddingProvider): PreparedChunk[] {
  const header = indexHeader(input.title, input.content);
  return chunkText(input.content, { tokenizer: embedder.tokenizer }).map((chunk) => ({
    ordinal: chunk.ordinal,
    text: chunk.text,
    charStart: chunk.charStart,
    charEnd: chunk.charEnd,
    tokenCount: chunk.tokenCount,
    indexText: header + chunk.text,
  }));
}

/** Chunks and embeds; throws the provider's ProviderError when embedding fails. */
export async function prepareMemoryContent(
  embedder: EmbeddingProvider,
  input: ContentToPrepare,
): Promise<PreparedContent> {
  const chunks = chunkContent(input, embedder);
  const vectors = await embedChunks(embedder, chunks);
  return { chunks, vectors, space: embedder.id };
}

export async function embedChunks(
  embedder: EmbeddingProvider,
  chunks: readonly { readonly indexText: string }[],
): Promise<Float32Array[]> {
  if (chunks.length === 0) return [];
  const vectors = await embedder.embed(
    chunks.map((c) => c.indexText),
    "passage",
  );
  if (vectors.length !== chunks.length) {
    throw new Error(`embedder returned ${vectors.length} vectors for ${chunks.length} chunks`);
  }
  return vectors;
}
