import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  ConversationMessageSchema,
  StoreConversationRequestSchema,
  type StoreConversationResponse,
} from "../../gen/memory/v1/ingest_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";
import { storedMemoryBody, storedMemorySchema } from "../stored-memory.js";

/** Messages per request (the proto's max_items). */
export const MAX_CONVERSATION_MESSAGES = 1_000;
/**
 * A session holds up to 1,000,000 characters (core: too_large); a request may carry that plus its
 * envelope (speakers, times, JSON escaping). Larger bodies are refused with 413 before they are read.
 */
export const CONVERSATION_BODY_LIMIT = 2 * 1024 * 1024;

const fields = StoreConversationRequestSchema.field;
const messageFields = ConversationMessageSchema.field;

/** docs/ingest.md "Conversations". */
export const conversationRequestSchema = z
  .strictObject({
    title: protoString(fields.title)
      .optional()
      .describe("The conversation; its sessions are linked in order of their first message"),
    sessionId: protoString(fields.sessionId)
      .optional()
      .describe("The session to create or append to; a new one (id generated) when unset"),
    messages: z
      .array(
        z.strictObject({
          speaker: protoString(messageFields.speaker, { required: true }).describe("Who said it"),
          content: z.string().describe("What was said, up to 100 KB"),
          at: z.iso
            .datetime({ offset: true, error: "must be an RFC 3339 date-time with Z or an offset" })
            .optional()
            .describe("When it was said (RFC 3339); unset: when the service first received it"),
        }),
      )
      .min(1, { error: "must hold at least one message" })
      .max(MAX_CONVERSATION_MESSAGES, { error: `must hold at most ${MAX_CONVERSATION_MESSAGES} messages` }),
  })
  .meta({ id: "ConversationRequest" });

export const conversationResponseSchema = z
  .object({
    sessionId: z.string(),
    memory: storedMemorySchema.describe("The session's memory; unchanged=true when no message was new"),
    turnsAdded: z.int().describe("Messages of this request that were stored"),
    turnsSkipped: z.int().describe("Messages the session already held (a re-send)"),
    turnsTotal: z.int().describe("Turns the session holds now"),
    previousSessionMemoryId: z.string().nullable().describe("The conversation's session before this one"),
    nextSessionMemoryId: z.string().nullable().describe("The conversation's session after this one"),
  })
  .meta({ id: "ConversationStored" });

/** POST /api/v1/conversations → IngestService/StoreConversation. */
export const conversationRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/conversations",
    {
      bodyLimit: CONVERSATION_BODY_LIMIT,
      config: { validationStatus: 422 },
      schema: {
        ...describeOperation(options, {
          id: "storeConversation",
          summary: "Store a conversation session's messages",
          description:
            "One episodic memory per session, one chunk per turn (speaker kept, valid from the message time). " +
            "201 when turns were added; 200 with memory.unchanged=true when every message was already stored. " +
            `Up to ${MAX_CONVERSATION_MESSAGES} messages per call, 100 KB per message, 1,000,000 characters per session.`,
          tag: "conversations",
          rpc: "memory.v1.IngestService/StoreConversation",
        }),
        body: conversationRequestSchema,
        response: {
          200: conversationResponseSchema,
          201: conversationResponseSchema,
          ...errorResponses(options.auth, 402, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { title, sessionId, messages } = request.body;
      const result = await options.clients.ingest.storeConversation(
        {
          ...(title === undefined ? {} : { title }),
          ...(sessionId === undefined ? {} : { sessionId }),
          messages: messages.map((m) => ({
            speaker: m.speaker,
            content: m.content,
            ...(m.at === undefined ? {} : { at: timestampFromDate(new Date(m.at)) }),
          })),
        },
        coreCall(request, options),
      );
      return reply.code(result.turnsAdded > 0 ? 201 : 200).send(conversationBody(result));
    },
  );
};

export function conversationBody(result: StoreConversationResponse) {
  return {
    sessionId: result.sessionId,
    memory: storedMemoryBody(result.memory),
    turnsAdded: result.turnsAdded,
    turnsSkipped: result.turnsSkipped,
    turnsTotal: result.turnsTotal,
    previousSessionMemoryId: result.previousSessionMemoryId ?? null,
    nextSessionMemoryId: result.nextSessionMemoryId ?? null,
  };
}
