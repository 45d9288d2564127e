import { randomUUID } from "node:crypto";
import type { CallOptions } from "@connectrpc/connect";
import type { FastifyRequest } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import type { GetSessionResponse } from "../gen/memory/v1/tenancy_service_pb.js";
import { invalidRequest, type JsonRpcError } from "./json-rpc-error.js";
import { acceptsEventStream } from "./negotiate-response-format.js";
import {
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  type Revision,
  supportsFormElicitation,
} from "./protocol-revisions.js";
import type { ResponseStream } from "./response-stream.js";
import { belongsTo, type McpSession, readSessionId } from "./session-id.js";
import type { UserConfirmation } from "./tools/tool-definition.js";
import {
  ELICITATION_TIMEOUT_MS,
  elicitationConfirmation,
  multiRoundTripConfirmation,
} from "./user-confirmation.js";

/** A client's answer to an elicitation, as its JSON-RPC response carries it (undefined: none came). */
type ElicitationAnswer = { readonly result?: unknown; readonly error?: unknown } | undefined;

/**
 * A session id used by a caller it was not issued to (another token or workspace): 404, as the
 * 2025 transport answers a session it does not know; the client starts a new one with initialize.
 */
export const foreignSession = (): JsonRpcError =>
  invalidRequest(
    "Session not found: this Mcp-Session-Id was issued to another token; send initialize for a new session",
    404,
  );

/** How a tools/call may ask its user, and where the client's answers to those questions go. */
export interface ElicitationSessions {
  /** How this request may ask the user (ToolContext.confirmation), if at all. */
  confirmationFor(
    request: FastifyRequest,
    revision: Revision,
    params: unknown,
    clientCapabilities: Record<string, unknown> | undefined,
    stream: ResponseStream,
    callOptions: CallOptions,
  ): UserConfirmation | undefined;
  /** Hands a client's answer to the call waiting for it; an answer counts only from the session's caller. */
  deliver(
    session: McpSession,
    who: GetSessionResponse,
    answer: { readonly id: unknown } & ElicitationAnswer,
  ): void;
}

export function createElicitationSessions(clients: CoreClients): ElicitationSessions {
  /**
   * 2025-11-25 elicitations waiting for the client's answer, by session and request id. In this
   * process only: the answer's POST must reach the gateway that holds the stream (one gateway, or
   * a balancer keeping a client's connections together); one that lands elsewhere is accepted and
   * dropped, and the waiting call ends unconfirmed when its stream closes or the wait times out.
   */
  const waitingAnswers = new Map<string, (answer: ElicitationAnswer) => void>();

  /** The session is the caller's (core tells who the caller is), or the request is refused. */
  const checkSessionOwner = async (session: McpSession, callOptions: CallOptions) => {
    if (!belongsTo(session, await clients.tenancy.getSession({}, callOptions))) throw foreignSession();
  };

  /** Asks over the POST's own stream and waits for the answer, its stream's end or the timeout. */
  const askOnStream =
    (session: McpSession, stream: ResponseStream, callOptions: CallOptions) =>
    async (method: string, requestParams: Record<string, unknown>): Promise<unknown> => {
      // Only when the user is to be asked: one more (cheap) core call to learn whose session it is.
      await checkSessionOwner(session, callOptions);
      return new Promise((resolve) => {
        const requestId = `elicitation-${randomUUID()}`;
        const key = `${session.id}\u0000${requestId}`;
        const finish = (answer: ElicitationAnswer) => {
          clearTimeout(timer);
          stopListening();
          waitingAnswers.delete(key);
          resolve(answer?.error === undefined ? answer?.result : undefined);
        };
        const timer = setTimeout(() => finish(undefined), ELICITATION_TIMEOUT_MS);
        timer.unref();
        const stopListening = stream.onClose(() => finish(undefined));
        waitingAnswers.set(key, finish);
        stream.write({ jsonrpc: "2.0", id: requestId, method, params: requestParams });
      });
    };

  return {
    confirmationFor(request, revision, params, clientCapabilities, stream, callOptions) {
      const credential = request.headers.authorization ?? "";
      if (revision === MODERN_REVISION) {
        return supportsFormElicitation(clientCapabilities)
          ? multiRoundTripConfirmation(
              typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {},
              credential,
            )
          : undefined;
      }
      if (revision !== LATEST_LEGACY_REVISION || !acceptsEventStream(request.headers.accept))
        return undefined;
      const session = readSessionId(request.headers["mcp-session-id"]);
      if (!session?.elicitation) return undefined;
      return elicitationConfirmation(askOnStream(session, stream, callOptions));
    },
    deliver(session, who, answer) {
      if (!belongsTo(session, who)) throw foreignSession();
      waitingAnswers.get(`${session.id}\u0000${String(answer.id)}`)?.(answer);
    },
  };
}
