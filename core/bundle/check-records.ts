import { invalidArgument } from "../errors.js";
import { MEMORY_KINDS, MEMORY_TYPES, REL_TYPE_PATTERN } from "../memories/index.js";
import type { BundleEdge, BundleMemory } from "./bundle-types.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/;

const bad = (what: string, field: string, n: number) =>
  invalidArgument("bundle", `not an export bundle: ${what} ${n} has an invalid "${field}"`);

function check(record: Record<string, unknown>, what: string, n: number) {
  const str = (field: string, optional = false): string | null => {
    const v = record[field];
    if (optional && v === null) return null;
    if (typeof v !== "string") throw bad(what, field, n);
    return v;
  };
  const uuid = (field: string, optional = false) => {
    const v = str(field, optional);
    if (v !== null && !UUID.test(v)) throw bad(what, field, n);
    return v;
  };
  const time = (field: string, optional = false) => {
    const v = str(field, optional);
    if (v !== null && (!ISO.test(v) || Number.isNaN(Date.parse(v)))) throw bad(what, field, n);
    return v;
  };
  const oneOf = <T extends string>(field: string, values: readonly T[]): T => {
    const v = str(field);
    if (!values.includes(v as T)) throw bad(what, field, n);
    return v as T;
  };
  return { str, uuid, time, oneOf };
}

/** The nth memory record, checked field by field (the database checks the rest, e.g. valid_to ≥ valid_from). */
export function bundleMemory(record: Record<string, unknown>, n: number): BundleMemory {
  const c = check(record, "memory", n);
  const tags = record.tags;
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === "string")) throw bad("memory", "tags", n);
  const metadata = record.metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
    throw bad("memory", "metadata", n);
  return {
    id: c.uuid("id") as string,
    lineageId: c.uuid("lineageId") as string,
    kind: c.oneOf("kind", MEMORY_KINDS),
    memoryType: c.oneOf("memoryType", MEMORY_TYPES),
    title: c.str("title") as string,
    content: c.str("content") as string,
    source: c.str("source", true),
    tags: tags as string[],
    metadata: metadata as Record<string, unknown>,
    status: c.oneOf("status", ["queued", "indexed", "failed"] as const),
    statusDetail: c.str("statusDetail", true),
    updateReason: c.str("updateReason", true),
    validFrom: c.time("validFrom") as string,
    validTo: c.time("validTo", true),
    recordedAt: c.time("recordedAt") as string,
    createdAt: c.time("createdAt") as string,
    updatedAt: c.time("updatedAt") as string,
  };
}

export function bundleEdge(record: Record<string, unknown>, n: number): BundleEdge {
  const c = check(record, "edge", n);
  const relType = c.str("relType") as string;
  if (!REL_TYPE_PATTERN.test(relType)) throw bad("edge", "relType", n);
  return {
    id: c.uuid("id") as string,
    relType,
    fromId: c.uuid("fromId") as string,
    toId: c.uuid("toId") as string,
    inverseEdgeId: c.uuid("inverseEdgeId", true),
    validFrom: c.time("validFrom") as string,
    validTo: c.time("validTo", true),
    createdAt: c.time("createdAt") as string,
  };
}
