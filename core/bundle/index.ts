/**
 * core/bundle: the export bundle (docs/export.md), one module for both ends — its format, its record
 * types, the writer the export uses and the reader the import uses. Code outside the folder imports
 * only this file (test/architecture/import-rules.test.ts keeps it so).
 */
export { BUNDLE_FORMAT, BUNDLE_SECTIONS, type BundleSection, IMPORTABLE_FORMATS } from "./bundle-format.js";
export type {
  BundleAuditEntry,
  BundleCounts,
  BundleEdge,
  BundleHead,
  BundleMemory,
  BundleRecords,
  BundleTenant,
} from "./bundle-types.js";
export { type BundleItem, checkCounts, readBundle } from "./read-bundle.js";
export { type BundleSectionSource, type WriteBundleText, writeBundle } from "./write-bundle.js";
