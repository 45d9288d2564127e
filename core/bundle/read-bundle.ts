import { invalidArgument } from "../errors.js";
import { BUNDLE_SECTIONS, type BundleSection, IMPORTABLE_FORMATS } from "./bundle-format.js";
import type { BundleCounts, BundleEdge, BundleMemory } from "./bundle-types.js";
import { bundleEdge, bundleMemory } from "./check-records.js";

/**
 * The one line that may be longer than any other: a 10 MB document, JSON-escaped (up to 6 bytes per
 * character for control characters; real text stays near 1–2×). A longer line is refused, so a
 * malformed bundle cannot make the reader buffer without bound.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What a bundle yields as it is read, each record checked as it comes. */
export type BundleItem =
  | { readonly kind: "head"; readonly format: string; readonly sourceTenantId: string }
  | { readonly kind: "memories"; readonly record: BundleMemory }
  | { readonly kind: "edges"; readonly record: BundleEdge }
  /** Audit entries are passed on as they stand: the reader checks only that each is an object. */
  | { readonly kind: "audit"; readonly record: Record<string, unknown> }
  | { readonly kind: "counts"; readonly counts: Record<string, unknown> };

type Line =
  | { readonly kind: "head"; readonly head: Record<string, unknown> }
  | { readonly kind: BundleSection; readonly record: Record<string, unknown> }
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
 * Reads a bundle in the layout bundle-format.ts describes (core/bundle/write-bundle.ts writes it):
 * the head, whose format must be one this version reads, then each record, checked field by field
 * (the database checks the rest, e.g. valid_to ≥ valid_from), then the counts, which the caller holds
 * against what it read (checkCounts) once it has done with the records. Every record is yielded as it
 * is read; nothing else is kept. Throws INVALID_ARGUMENT (field "bundle", or "format") on anything else.
 */
export async function* readBundle(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<BundleItem> {
  const seen = { memories: 0, edges: 0 };
  for await (const line of readBundleLines(chunks)) {
    switch (line.kind) {
      case "head": {
        const given = line.head.format;
        if (typeof given !== "string" || !IMPORTABLE_FORMATS.includes(given)) {
          throw invalidArgument(
            "format",
            `unknown bundle format ${JSON.stringify(given ?? null)}; this server reads ${IMPORTABLE_FORMATS.join(", ")}`,
          );
        }
        const tenant = line.head.tenant as { id?: unknown } | undefined;
        yield {
          kind: "head",
          format: given,
          sourceTenantId: typeof tenant?.id === "string" ? tenant.id : "",
        };
        break;
      }
      case "memories":
        yield { kind: "memories", record: bundleMemory(line.record, seen.memories++) };
        break;
      case "edges":
        yield { kind: "edges", record: bundleEdge(line.record, seen.edges++) };
        break;
      case "audit":
        yield { kind: "audit", record: line.record };
        break;
      case "counts":
        yield line;
    }
  }
}

/** Throws unless the bundle's counts are the records read: a truncated or edited bundle. */
export function checkCounts(counts: Record<string, unknown> | undefined, read: BundleCounts): void {
  if (counts && BUNDLE_SECTIONS.every((section) => counts[section] === read[section])) return;
  throw invalidArgument(
    "bundle",
    `the bundle's counts do not match its records (read ${read.memories} memories, ${read.edges} edges, ${read.audit} audit entries): truncated or edited`,
  );
}

/** The bundle's lines, parsed: the head, each record, the counts. */
async function* readBundleLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Line> {
  let section: BundleSection | undefined;
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
      if (!opened[2]) section = opened[1] as BundleSection;
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
