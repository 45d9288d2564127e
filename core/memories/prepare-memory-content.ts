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
  /** The chunk's own valid-time start (a conversation turn's message time); unset: the version's. */
  readonly validFrom?: Date;
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
  /** Cut only at these boundaries (conversation turns); unset: the Markdown chunker decides. */
  readonly segments?: readonly ContentSegment[] | undefined;
}

/**
 * A stretch of the content that is chunked on its own (a conversation turn): chunks never cross its
 * ends, its index text is the slice alone (no title header), a piece after the first is headed by
 * `label` (the speaker), and its chunks are valid from `validFrom`.
 */
export interface ContentSegment {
  readonly charStart: number;
  readonly charEnd: number;
  readonly label: string;
  readonly validFrom: Date;
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
  if (input.segments !== undefined) return chunkSegments(input.content, input.segments, embedder);
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

/**
 * Each segment chunked alone, in order: a segment that fits is one chunk, a longer one is cut by the
 * Markdown chunker inside its bounds. The index text is the chunk itself — a time or title prefix would
 * be a term of every chunk's BM25 text and pull every vector the same way — with the label put before
 * a continuation piece, so each chunk of a long turn still names its speaker.
 */
function chunkSegments(
  content: string,
  segments: readonly ContentSegment[],
  embedder: EmbeddingProvider,
): PreparedChunk[] {
  const chunks: PreparedChunk[] = [];
  for (const segment of segments) {
    const pieces = chunkText(content.slice(segment.charStart, segment.charEnd), {
      tokenizer: embedder.tokenizer,
    });
    for (const piece of pieces) {
      chunks.push({
        ordinal: chunks.length,
        text: piece.text,
        charStart: segment.charStart + piece.charStart,
        charEnd: segment.charStart + piece.charEnd,
        tokenCount: piece.tokenCount,
        indexText: piece.charStart === 0 ? piece.text : `${segment.label}: ${piece.text}`,
        validFrom: segment.validFrom,
      });
    }
  }
  return chunks;
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
