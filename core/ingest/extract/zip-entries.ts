import { inflateRawSync } from "node:zlib";
import { ExtractionFailure } from "./file-types.js";

/** One file of a ZIP archive, as its central directory describes it. */
export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated; others are refused when read. */
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

const unreadable = (why: string) =>
  new ExtractionFailure("unsupported", `the ZIP container cannot be read: ${why}`);

/**
 * The central directory of a ZIP archive (a DOCX is one), read without inflating anything, so the
 * sizes can be checked before a single byte is unpacked. ZIP64 archives are refused: no DOCX within
 * the 10 MB limit needs one.
 */
export function listZipEntries(data: Uint8Array): ZipEntry[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // The end record is the last 22 bytes plus a comment of at most 65,535 bytes.
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw unreadable("no end of central directory");
  const count = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  const offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw unreadable("ZIP64 archives are not read");
  if (offset + size > eocd) throw unreadable("the central directory lies outside the file");
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || view.getUint32(at, true) !== CENTRAL_SIGNATURE)
      throw unreadable("a broken central directory");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    entries.push({
      name: Buffer.from(data.subarray(at + 46, at + 46 + nameLength)).toString("utf8"),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Unpacks one entry, never to more bytes than its directory entry declares: zlib stops at
 * `maxOutputLength`, so an entry that lies about its size (a zip bomb) fails after that many bytes
 * instead of filling memory.
 */
export function readZipEntry(data: Uint8Array, entry: ZipEntry): Buffer {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > data.length || view.getUint32(at, true) !== LOCAL_SIGNATURE)
    throw unreadable(`no local header for ${entry.name}`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > data.length) throw unreadable(`${entry.name} runs past the end of the file`);
  const packed = data.subarray(start, end);
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.uncompressedSize)
      throw unreadable(`${entry.name} has inconsistent sizes`);
    return Buffer.from(packed);
  }
  if (entry.method !== 8) throw unreadable(`${entry.name} uses compression method ${entry.method}`);
  try {
    const out = inflateRawSync(packed, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    if (out.length !== entry.uncompressedSize)
      throw unreadable(`${entry.name} unpacks to another size than declared`);
    return out;
  } catch (error) {
    if (error instanceof ExtractionFailure) throw error;
    // RangeError (ERR_BUFFER_TOO_LARGE): more bytes than declared; or a corrupt deflate stream.
    throw unreadable(`${entry.name} unpacks to more bytes than declared or is corrupt`);
  }
}
