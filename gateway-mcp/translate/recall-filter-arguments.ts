import { z } from "zod";
import {
  filterKinds,
  filterMemoryTypes,
  filterOrigin,
  filterTags,
  filterTagsMatch,
  type RecallFilterWords,
} from "../../gateway-kit/recall-filter-message.js";
import { parseIsoInstant } from "./parse-iso-instant.js";

const instant = (what: string) =>
  z
    .string()
    .refine((text) => parseIsoInstant(text) !== undefined, {
      message: "must be an ISO 8601 date-time with offset (2025-03-01T12:00:00Z) or a date (2025-03-01)",
    })
    .optional()
    .meta({ description: `${what}, ISO 8601 with Z or an offset, or a date (midnight UTC).` });

/**
 * Filter arguments of service_recall and service_recall_at_time (ADR 0220): each set one must hold.
 * Applied inside every search before its top k, so k hits come back when enough memories match.
 */
export const recallFilterArguments = {
  memory_types: filterMemoryTypes.optional().meta({
    description: "Only memories of these types (semantic, episodic, procedural, reference, working, entity).",
  }),
  tags: filterTags.optional().meta({ description: "Only memories carrying these tags (see tags_match)." }),
  tags_match: filterTagsMatch.optional().meta({
    default: "any",
    description: "any: at least one of the tags; all: every one of them.",
  }),
  origin: filterOrigin.optional().meta({
    description:
      "Only memories whose source starts with this text (case-sensitive), e.g. 'https://wiki.example.com/'.",
  }),
  created_after: instant("Only memories stored at or after this instant"),
  created_before: instant("Only memories stored before this instant"),
  kinds: filterKinds.optional().meta({ description: "Only documents, only entries, or both." }),
} as const;

type FilterArgs = { [K in keyof typeof recallFilterArguments]?: z.output<(typeof recallFilterArguments)[K]> };

/** created_after must be earlier than created_before (-32602 naming created_after). */
export function checkFilterRange(args: FilterArgs, ctx: z.RefinementCtx): void {
  const after = args.created_after === undefined ? undefined : parseIsoInstant(args.created_after);
  const before = args.created_before === undefined ? undefined : parseIsoInstant(args.created_before);
  if (after !== undefined && before !== undefined && after >= before) {
    ctx.addIssue({ code: "custom", path: ["created_after"], message: "must be earlier than created_before" });
  }
  if (args.tags_match === "all" && args.tags === undefined) {
    ctx.addIssue({ code: "custom", path: ["tags_match"], message: "all needs tags" });
  }
}

export function filterWordsOf(args: FilterArgs): RecallFilterWords {
  return {
    memoryTypes: args.memory_types,
    tags: args.tags,
    tagsMatch: args.tags_match,
    origin: args.origin,
    createdAfter: args.created_after === undefined ? undefined : parseIsoInstant(args.created_after),
    createdBefore: args.created_before === undefined ? undefined : parseIsoInstant(args.created_before),
    kinds: args.kinds,
  };
}
