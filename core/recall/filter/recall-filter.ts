import { timestampDate } from "@bufbuild/protobuf/wkt";
import { MemoryKindSchema, MemoryTypeSchema } from "../../../gen/memory/v1/memory_pb.js";
import {
  type RecallFilter as RecallFilterMessage,
  TagMatch,
} from "../../../gen/memory/v1/recall_service_pb.js";
import { enumWord } from "../../../lib/proto-enum-words.js";
import { invalidArgument } from "../../errors.js";

/**
 * What a recall may return (proto RecallFilter, docs/recall.md "Filters"): every condition that is
 * set must hold. Words are the database's (memories.memory_type, memories.kind).
 */
export interface RecallFilter {
  readonly memoryTypes?: readonly string[];
  readonly tags?: { readonly values: readonly string[]; readonly match: "any" | "all" };
  /** Prefix of memories.source (the ingest `source`), case-sensitive. */
  readonly origin?: string;
  /** created_at >= createdAfter. */
  readonly createdAfter?: Date;
  /** created_at < createdBefore. */
  readonly createdBefore?: Date;
  readonly kinds?: readonly string[];
}

const distinct = (words: readonly string[]) => [...new Set(words)];

function instant(field: string, timestamp: RecallFilterMessage["createdAfter"]): Date | undefined {
  if (timestamp === undefined) return undefined;
  const date = timestampDate(timestamp);
  if (!Number.isFinite(date.getTime())) throw invalidArgument(field, `${field} is not a valid point in time`);
  return date;
}

/**
 * The request's filter, or undefined when it restricts nothing. Bounds (list sizes, lengths, enum
 * values) were enforced by protovalidate; the checks across fields are made here.
 */
export function recallFilterOf(message: RecallFilterMessage | undefined): RecallFilter | undefined {
  if (message === undefined) return undefined;
  const createdAfter = instant("filter.created_after", message.createdAfter);
  const createdBefore = instant("filter.created_before", message.createdBefore);
  if (createdAfter !== undefined && createdBefore !== undefined && createdAfter >= createdBefore) {
    throw invalidArgument(
      "filter.created_after",
      "filter.created_after must be earlier than filter.created_before",
    );
  }
  if (message.tags.length === 0 && message.tagsMatch === TagMatch.ALL) {
    throw invalidArgument("filter.tags", "filter.tags_match all needs at least one tag in filter.tags");
  }
  const filter: RecallFilter = {
    ...(message.memoryTypes.length > 0
      ? { memoryTypes: distinct(message.memoryTypes.map((t) => enumWord(MemoryTypeSchema, t))) }
      : {}),
    ...(message.tags.length > 0
      ? {
          tags: {
            values: distinct(message.tags),
            match: message.tagsMatch === TagMatch.ALL ? ("all" as const) : ("any" as const),
          },
        }
      : {}),
    ...(message.origin !== undefined ? { origin: message.origin } : {}),
    ...(createdAfter !== undefined ? { createdAfter } : {}),
    ...(createdBefore !== undefined ? { createdBefore } : {}),
    ...(message.kinds.length > 0
      ? { kinds: distinct(message.kinds.map((k) => enumWord(MemoryKindSchema, k))) }
      : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}
