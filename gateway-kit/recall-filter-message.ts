import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { MemoryKindSchema, MemoryTypeSchema } from "../gen/memory/v1/memory_pb.js";
import { RecallFilterSchema, TagMatch } from "../gen/memory/v1/recall_service_pb.js";
import { enumNumber } from "../lib/proto-enum-words.js";
import { protoEnum } from "./proto-enum-schema.js";
import { protoString } from "./proto-rules.js";

/**
 * The recall filter's values as both gateways accept them (REST camelCase, MCP snake_case names;
 * ADR 0220). Limits are the proto's (max items of RecallFilter), so a gateway answers 400 / -32602
 * before core would say INVALID_ARGUMENT.
 */
const fields = RecallFilterSchema.field;

export const filterMemoryTypes = z
  .array(protoEnum(MemoryTypeSchema))
  .min(1, { error: "must name at least one memory type" })
  .max(6, { error: "must name at most 6 memory types" });
export const filterKinds = z
  .array(protoEnum(MemoryKindSchema))
  .min(1, { error: "must name at least one kind" })
  .max(2, { error: "must name at most 2 kinds" });
export const filterTags = z
  .array(
    z
      .string()
      .min(1, { error: "a tag must not be empty" })
      .max(100, { error: "a tag must be at most 100 characters" }),
  )
  .min(1, { error: "must name at least one tag" })
  .max(64, { error: "must name at most 64 tags" });
export const filterTagsMatch = z.enum(["any", "all"]);
export const filterOrigin = protoString(fields.origin);

/** The filter's values in words and instants, as parsed by a gateway. */
export interface RecallFilterWords {
  readonly memoryTypes?: readonly string[] | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly tagsMatch?: "any" | "all" | undefined;
  readonly origin?: string | undefined;
  readonly createdAfter?: Date | undefined;
  readonly createdBefore?: Date | undefined;
  readonly kinds?: readonly string[] | undefined;
}

/** The proto RecallFilter of the words; undefined when no condition is set. */
export function recallFilterMessage(
  words: RecallFilterWords,
): MessageInitShape<typeof RecallFilterSchema> | undefined {
  const filter: MessageInitShape<typeof RecallFilterSchema> = {
    ...(words.memoryTypes
      ? { memoryTypes: words.memoryTypes.map((w) => enumNumber(MemoryTypeSchema, w)) }
      : {}),
    ...(words.tags ? { tags: [...words.tags] } : {}),
    ...(words.tagsMatch ? { tagsMatch: words.tagsMatch === "all" ? TagMatch.ALL : TagMatch.ANY } : {}),
    ...(words.origin !== undefined ? { origin: words.origin } : {}),
    ...(words.createdAfter ? { createdAfter: timestampFromDate(words.createdAfter) } : {}),
    ...(words.createdBefore ? { createdBefore: timestampFromDate(words.createdBefore) } : {}),
    ...(words.kinds ? { kinds: words.kinds.map((w) => enumNumber(MemoryKindSchema, w)) } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}
