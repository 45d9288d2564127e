/** One chunk of a document: `text === document.slice(charStart, charEnd)`. */
export interface Chunk {
  /** 0-based position in the document's chunk sequence. */
  readonly ordinal: number;
  readonly text: string;
  /** UTF-16 offsets into the original text, end exclusive. */
  readonly charStart: number;
  readonly charEnd: number;
  /** Tokens of `text` as the embedding model's tokenizer counts them (without special tokens). */
  readonly tokenCount: number;
}
