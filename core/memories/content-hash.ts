import { createHash } from "node:crypto";

/** memories.content_sha256: byte-identical detection (spec behaviour rule 1, `unchanged`). */
export function contentSha256(content: string): Buffer {
  return createHash("sha256").update(content, "utf8").digest();
}
