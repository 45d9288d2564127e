import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FeedWatermarkState } from "./feed-watermark.js";
import type { Bm25IndexParts } from "./tenant-bm25-index.js";

/**
 * A workspace's BM25 index on disk (ADR 0370): the compacted parts and the change-feed watermark
 * they reflect, so that a workspace whose index is not in memory (after a restart, or evicted by the
 * budget) loads it in milliseconds and catches up from the feed, instead of rebuilding it from every
 * chunk in PostgreSQL (7 s at 100k chunks). PostgreSQL stays the source of truth: a file that is
 * missing, damaged, for another tenant, or older than the feed reaches back is simply rebuilt.
 *
 * Layout: magic, header length (u32), JSON header, then the sections, each starting at a multiple of
 * 8 bytes: lengths u32[n], valid_from f64[n], start i32[L+1], docs i32[P], tfs u16[P],
 * lexeme offsets i32[L+1], chunk ids (n × 36 ASCII), lexeme text (UTF-8).
 */
const MAGIC = Buffer.from("BM25SEG1", "ascii");
const UUID_LENGTH = 36;

interface Header {
  readonly tenantId: string;
  readonly feed: FeedWatermarkState;
  readonly chunks: number;
  readonly lexemes: number;
  readonly postings: number;
  readonly lexemeTextBytes: number;
}

export interface Bm25Segment {
  readonly feed: FeedWatermarkState;
  readonly parts: Bm25IndexParts;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** The file of one tenant's segment (tenant ids are UUIDs: checked, never a path of the caller's). */
export function segmentPath(directory: string, tenantId: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(tenantId))
    throw new Error("tenant id is not a uuid");
  return join(directory, `${tenantId.toLowerCase()}.bm25`);
}

/** The segment as bytes, taken synchronously (the index may change once the caller yields). */
export function encodeSegment(tenantId: string, feed: FeedWatermarkState, parts: Bm25IndexParts): Buffer {
  const n = parts.chunkIds.length;
  for (const id of parts.chunkIds) if (id.length !== UUID_LENGTH) throw new Error("a chunk id is not a uuid");
  const lexemeText = Buffer.from(parts.lexemeText, "utf8");
  const header: Header = {
    tenantId,
    feed,
    chunks: n,
    lexemes: parts.lexemeOffsets.length - 1,
    postings: parts.docs.length,
    lexemeTextBytes: lexemeText.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const sections: Buffer[] = [
    Buffer.from(parts.lengths.buffer, parts.lengths.byteOffset, parts.lengths.byteLength),
    Buffer.from(parts.validFromUs.buffer, parts.validFromUs.byteOffset, parts.validFromUs.byteLength),
    Buffer.from(parts.start.buffer, parts.start.byteOffset, parts.start.byteLength),
    Buffer.from(parts.docs.buffer, parts.docs.byteOffset, parts.docs.byteLength),
    Buffer.from(parts.tfs.buffer, parts.tfs.byteOffset, parts.tfs.byteLength),
    Buffer.from(parts.lexemeOffsets.buffer, parts.lexemeOffsets.byteOffset, parts.lexemeOffsets.byteLength),
    Buffer.from(parts.chunkIds.join(""), "ascii"),
    lexemeText,
  ];
  let size = align8(MAGIC.length + 4 + headerBytes.length);
  for (const section of sections) size = align8(size) + section.length;
  const out = Buffer.alloc(size);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  let at = align8(MAGIC.length + 4 + headerBytes.length);
  for (const section of sections) {
    section.copy(out, at);
    at = align8(at + section.length);
  }
  return out;
}

/** The segment in `bytes`; throws when they are not a whole, consistent segment of this tenant. */
export function decodeSegment(tenantId: string, bytes: Buffer): Bm25Segment {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
    throw new Error("not a BM25 segment");
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  const header = JSON.parse(
    bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerLength).toString("utf8"),
  ) as Header;
  if (header.tenantId !== tenantId) throw new Error("segment of another tenant");
  const { chunks: n, lexemes, postings } = header;
  let at = align8(MAGIC.length + 4 + headerLength);
  // Each section is copied out of the file's buffer: typed arrays of their own, aligned.
  const take = (length: number): ArrayBuffer => {
    if (at + length > bytes.length) throw new Error("segment truncated");
    const copy = new Uint8Array(length);
    copy.set(bytes.subarray(at, at + length));
    at = align8(at + length);
    return copy.buffer;
  };
  const lengths = new Uint32Array(take(4 * n));
  const validFromUs = new Float64Array(take(8 * n));
  const start = new Int32Array(take(4 * (lexemes + 1)));
  const docs = new Int32Array(take(4 * postings));
  const tfs = new Uint16Array(take(2 * postings));
  const lexemeOffsets = new Int32Array(take(4 * (lexemes + 1)));
  const idText = Buffer.from(take(UUID_LENGTH * n)).toString("ascii");
  const lexemeText = Buffer.from(take(header.lexemeTextBytes)).toString("utf8");
  const chunkIds: string[] = new Array(n);
  for (let i = 0; i < n; i++) chunkIds[i] = idText.slice(i * UUID_LENGTH, (i + 1) * UUID_LENGTH);
  return {
    feed: header.feed,
    parts: { chunkIds, lengths, validFromUs, lexemeText, lexemeOffsets, start, docs, tfs },
  };
}

/** Writes a tenant's segment whole or not at all (a temporary file renamed over the old one). */
export async function writeSegmentFile(directory: string, tenantId: string, bytes: Buffer): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const path = segmentPath(directory, tenantId);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes, { mode: 0o600 });
  await rename(temporary, path);
}

/** The tenant's segment file's bytes, or undefined when there is none. */
export async function readSegmentFile(directory: string, tenantId: string): Promise<Buffer | undefined> {
  try {
    return await readFile(segmentPath(directory, tenantId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Removes the tenant's segment (erasure: the lexemes of erased chunks must not stay on disk). */
export async function removeSegmentFile(directory: string, tenantId: string): Promise<void> {
  await rm(segmentPath(directory, tenantId), { force: true });
}
