/** The types IngestService/UploadFile reads (docs/ingest.md "Files"). */
export type FileType = "pdf" | "docx" | "html" | "markdown" | "text";

/** Named in every unsupported_media_type answer, so the caller knows what to send instead. */
export const SUPPORTED_TYPES = "PDF (with a text layer), DOCX, HTML, Markdown or plain text (UTF-8)";

/** Spec "Quotas and sizes": a document is at most 10 MB; a file is held to the same. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** What extraction hands to the write path: Markdown (or plain text) the chunker reads. */
export interface ExtractedText {
  readonly type: FileType;
  readonly text: string;
  /**
   * A PDF's pages: the UTF-16 offset in `text` where each page begins (ascending, the first 0). A
   * chunk's page is the last page start at or before its char_start.
   */
  readonly pageStarts?: readonly number[];
}

/**
 * Why extraction refused a file; core turns each kind into its error once (extract-file.ts):
 * unsupported → unsupported_media_type (415), no_text → no_text (422), too_large → too_large (413).
 */
export type ExtractionFailureKind = "unsupported" | "no_text" | "too_large";

export class ExtractionFailure extends Error {
  constructor(
    readonly kind: ExtractionFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "ExtractionFailure";
  }
}
