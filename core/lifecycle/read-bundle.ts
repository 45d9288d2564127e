import { invalidArgument } from "../errors.js";

/**
 * The one line that may be longer than any other: a 10 MB document, JSON-escaped (up to 6 bytes per
 * character for control characters; real text stays near 1–2×). A longer line is refused, so a
 * malformed bundle cannot make the reader buffer without bound.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export type BundleItem =
  | { readonly kind: "head"; readonly head: Record<string, unknown> }
  | { readonly kind: "memories" | "edges" | "audit"; readonly record: Record<string, unknown> }
  | { readonly kind: "counts"; readonly counts: Record<string, unknown> };

const SECTION = /^"(memories|edges|audit)":\[(\])?(,)?$/;
const COUNTS = /^"counts":(\{[^{}]*\})\}$/;

const invalid = (message: string) => invalidArgument("bundle", `not an export bundle: ${message}`);

function parseObject(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`${where} is not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid(`${where} is not an object`);
  return value as Record<string, unknown>;
}

/** Lines of a byte stream, decoded as UTF-8 across chunk boundaries, without holding more than a line. */
export async function* readLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending = "";
  const decode = (bytes?: Uint8Array) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw invalid("it is not UTF-8");
    }
  };
  for await (const chunk of chunks) {
    pending += decode(chunk);
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
    if (pending.length > MAX_LINE_BYTES) throw invalid(`a line is longer than ${MAX_LINE_BYTES} bytes`);
  }
  pending += decode();
  if (pending.length > 0) yield pending;
}

/**
 * Reads a bundle as GET /api/tenant/export writes it (docs/export.md): the head object's members on
 * the first line, then each array's records one per line, then the counts. Every record is yielded as
 * it is read; nothing else is kept. Throws INVALID_ARGUMENT (field "bundle") on anything else.
 */
export async function* readBundle(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<BundleItem> {
  let section: "memories" | "edges" | "audit" | undefined;
  let first = true;
  let ended = false;
  for await (const raw of readLines(chunks)) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (first) {
      first = false;
      if (!line.startsWith("{") || !line.endsWith(","))
        throw invalid("the first line is not the bundle's head");
      yield { kind: "head", head: parseObject(`${line.slice(0, -1)}}`, "the head") };
      continue;
    }
    if (ended) {
      if (line.trim() === "") continue;
      throw invalid("there is text after the counts");
    }
    if (section) {
      if (line === "]" || line === "],") {
        section = undefined;
        continue;
      }
      const text = line.endsWith(",") ? line.slice(0, -1) : line;
      yield { kind: section, record: parseObject(text, `a record of "${section}"`) };
      continue;
    }
    const opened = SECTION.exec(line);
    if (opened) {
      if (!opened[2]) section = opened[1] as "memories" | "edges" | "audit";
      continue;
    }
    const counts = COUNTS.exec(line);
    if (counts?.[1]) {
      ended = true;
      yield { kind: "counts", counts: parseObject(counts[1], "the counts") };
      continue;
    }
    throw invalid("unexpected line between the arrays");
  }
  if (first) throw invalid("it is empty");
  if (!ended) throw invalid("it ends before its counts (truncated?)");
}
