/**
 * The export bundle (docs/export.md): one JSON document, written so that it can be read line by line —
 * the head object's members on the first line, then the arrays "memories", "edges" and "audit" with
 * one record per line, then "counts" and the closing brace on the last line. Chunks and vectors are not
 * in it: they are derived from the content and rebuilt on import.
 */

/** The `format` this version writes; a change to the shape gets a new version. */
export const BUNDLE_FORMAT = "memory-service-export/v1";

/** The formats this version reads. */
export const IMPORTABLE_FORMATS: readonly string[] = [BUNDLE_FORMAT];

/** The arrays of a bundle, in the order they are written. */
export const BUNDLE_SECTIONS = ["memories", "edges", "audit"] as const;
export type BundleSection = (typeof BUNDLE_SECTIONS)[number];
