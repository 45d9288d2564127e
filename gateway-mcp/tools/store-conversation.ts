import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  ConversationMessageSchema,
  StoreConversationRequestSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import { parseIsoInstant } from "../translate/parse-iso-instant.js";
import { storedMemoryResult, storedMemorySchema } from "../translate/stored-memory-result.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = StoreConversationRequestSchema.field;
const messageFields = ConversationMessageSchema.field;

export const storeConversationInput = z.strictObject({
  title: protoString(fields.title).optional().meta({
    description:
      "The conversation's name (e.g. 'Weekly sync with Anna'); sessions with the same title are linked in time order.",
  }),
  session_id: protoString(fields.sessionId).optional().meta({
    description:
      "The session to add to; messages already stored in it are skipped. Default: a new session (its id is returned).",
  }),
  messages: z
    .array(
      z.strictObject({
        speaker: protoString(messageFields.speaker, { required: true }).meta({ description: "Who said it." }),
        content: z.string().meta({ description: "What was said, at most 100 KB." }),
        at: z
          .string()
          .refine((text) => parseIsoInstant(text) !== undefined, {
            message:
              "must be an ISO 8601 date-time with offset (2025-03-01T12:00:00Z) or a date (2025-03-01)",
          })
          .optional()
          .meta({ description: "When it was said, ISO 8601 with Z or an offset. Default: now." }),
      }),
    )
    .min(1)
    .max(1000)
    .meta({ description: "The messages in the order they were said, 1 to 1,000 per call." }),
});

export const storedConversationSchema = z.object({
  session_id: z.string().describe("Send it again with later messages to continue the session."),
  memory: storedMemorySchema.describe("The session's memory; unchanged: true when no message was new."),
  turns_added: z.number().int(),
  turns_skipped: z.number().int().describe("Messages the session already held."),
  turns_total: z.number().int(),
  previous_session_memory_id: z.string().optional(),
  next_session_memory_id: z.string().optional(),
});

/**
 * service_store_conversation (write) → IngestService.StoreConversation (docs/ingest.md
 * "Conversations"). Idempotent by design: a re-sent message is recognised and skipped, so the tool
 * needs no idempotency key.
 */
export const storeConversationTool = defineTool({
  name: "service_store_conversation",
  title: "Store a conversation",
  description:
    "Save the messages of a conversation (a chat, a meeting transcript) so what was said, by whom and when can be recalled later. " +
    "Each call stores one session: pass session_id to continue a session (messages already stored are skipped, so re-sending is safe), " +
    "and the same title for all sessions of one conversation. Recall then returns the single turn with its speaker and time. " +
    "For a single fact use service_store_memory; for a document service_upload_document.",
  input: storeConversationInput,
  output: storedConversationSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.conversation],
  async call(args, { clients, callOptions }) {
    const response = await clients.ingest.storeConversation(
      {
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.session_id !== undefined ? { sessionId: args.session_id } : {}),
        messages: args.messages.map((m) => {
          const at = m.at === undefined ? undefined : parseIsoInstant(m.at);
          return {
            speaker: m.speaker,
            content: m.content,
            ...(at !== undefined ? { at: timestampFromDate(at) } : {}),
          };
        }),
      },
      callOptions,
    );
    const hint = response.memory?.quota?.hint;
    return {
      structured: {
        session_id: response.sessionId,
        memory: storedMemoryResult(response.memory),
        turns_added: response.turnsAdded,
        turns_skipped: response.turnsSkipped,
        turns_total: response.turnsTotal,
        ...(response.previousSessionMemoryId !== undefined
          ? { previous_session_memory_id: response.previousSessionMemoryId }
          : {}),
        ...(response.nextSessionMemoryId !== undefined
          ? { next_session_memory_id: response.nextSessionMemoryId }
          : {}),
      },
      ...(hint ? { note: hint } : {}),
    };
  },
});
