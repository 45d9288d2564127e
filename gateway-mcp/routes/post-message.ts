import type { CallOptions } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../../gateway-kit/core-clients.js";
import { forwardedHeaders } from "../../gateway-kit/credentials.js";
import type { GetSessionResponse } from "../../gen/memory/v1/tenancy_service_pb.js";
import { GATEWAY_HEADER, MCP_GATEWAY } from "../../lib/gateway-metadata.js";
import type { OriginHook } from "../allowed-origin.js";
import { authenticateCaller } from "../authenticate-caller.js";
import { classifyRequest, type RequestEra } from "../classify-request.js";
import type { ElicitationSessions } from "../elicitation-sessions.js";
import { frameResult, handleRequest, type RequestContext } from "../handle-request.js";
import { invalidRequest, JsonRpcError } from "../json-rpc-error.js";
import { negotiateResponseFormat, type ResponseFormat } from "../negotiate-response-format.js";
import { type JsonRpcId, type JsonRpcMessage, parseJsonRpcMessage } from "../parse-json-rpc-message.js";
import { challengeOf } from "../protected-resource-metadata.js";
import {
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  type Revision,
  supportsFormElicitation,
} from "../protocol-revisions.js";
import { ResponseStream } from "../response-stream.js";
import { send, sendError } from "../send-json-rpc.js";
import { CORE_CALL_TIMEOUT_MS, MCP_BODY_LIMIT_BYTES, MCP_PATH } from "../server-info.js";
import { issueSessionId, readSessionId } from "../session-id.js";
import { toJsonRpcError } from "../to-json-rpc-error.js";

/** Core failures that are bugs or data problems rather than answers, worth an error log line. */
const SERVER_FAULTS: ReadonlySet<Code> = new Set([Code.Unknown, Code.Internal, Code.DataLoss]);

export interface PostMessageDeps {
  readonly clients: CoreClients;
  readonly version: string;
  readonly publicUrl: string;
  readonly elicitations: ElicitationSessions;
  readonly recordToolCall: RequestContext["recordToolCall"];
}

/** POST on the endpoint: one JSON-RPC message in, its answer (or 202) out. */
export function registerPostMessage(
  app: FastifyInstance,
  deps: PostMessageDeps,
  checkOrigin: OriginHook,
): void {
  app.post(
    MCP_PATH,
    { bodyLimit: MCP_BODY_LIMIT_BYTES, compress: false, onRequest: checkOrigin },
    async (request, reply) => {
      const format = negotiateResponseFormat(request.headers.accept);
      const stream = new ResponseStream(reply);
      let id: JsonRpcId = null;
      let revision: Revision | undefined;
      try {
        if (format === undefined) {
          throw invalidRequest("Not acceptable: accept application/json or text/event-stream", 406);
        }
        checkContentType(request);
        const message = parseJsonRpcMessage(typeof request.body === "string" ? request.body : "");
        if (message.kind === "request") id = message.id;
        const era = classifyRequest(request.headers, message);
        revision = era.revision;
        let caller: GetSessionResponse | undefined;
        const context = requestContext(deps, request, era, message, stream, (who) => {
          caller = who;
        });
        if (message.kind !== "request") return await acceptNonRequest(deps, request, reply, message, context);
        const result = frameResult(
          message.method,
          await handleRequest(message.method, message.params, context),
          era.revision,
          deps.version,
        );
        if (message.method === "initialize") issueElicitationSession(reply, message.params, result, caller);
        if (stream.isOpen) return stream.end({ jsonrpc: "2.0", id, result });
        return send(reply, format, 200, { jsonrpc: "2.0", id, result });
      } catch (error) {
        return answerFailure(deps, request, reply, { format, stream, id, revision }, error);
      }
    },
  );
}

/** The content type check of Streamable HTTP, before the body is looked at (versions: classify-request.ts). */
function checkContentType(request: FastifyRequest): void {
  const contentType = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    throw invalidRequest(
      `Unsupported content type ${contentType ? `'${contentType}'` : "(none)"}: POST one JSON-RPC message as application/json`,
      415,
    );
  }
}

/** What the method handlers get: the core clients with the caller's credentials, the revision, the user. */
function requestContext(
  deps: PostMessageDeps,
  request: FastifyRequest,
  era: RequestEra,
  message: JsonRpcMessage,
  stream: ResponseStream,
  onAuthenticated: (who: GetSessionResponse) => void,
): RequestContext {
  const callOptions: CallOptions = {
    // Marks MCP traffic so core applies the spec's per-IP MCP limit (api plan: 60 / 60 s).
    headers: { ...forwardedHeaders(request, "bearer"), [GATEWAY_HEADER]: MCP_GATEWAY },
    timeoutMs: CORE_CALL_TIMEOUT_MS,
  };
  const confirmation =
    message.kind === "request" && message.method === "tools/call"
      ? deps.elicitations.confirmationFor(
          request,
          era.revision,
          message.params,
          "clientCapabilities" in era ? era.clientCapabilities : undefined,
          stream,
          callOptions,
        )
      : undefined;
  return {
    clients: deps.clients,
    callOptions,
    version: deps.version,
    revision: era.revision,
    onAuthenticated,
    ...(confirmation ? { confirmation } : {}),
    ...(deps.recordToolCall ? { recordToolCall: deps.recordToolCall } : {}),
  };
}

/** Transport "Sending Messages": an accepted notification or response is 202 with no body. */
async function acceptNonRequest(
  deps: PostMessageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  message: Exclude<JsonRpcMessage, { kind: "request" }>,
  context: RequestContext,
): Promise<FastifyReply> {
  const who = await authenticateCaller(context);
  const session = readSessionId(request.headers["mcp-session-id"]);
  // An answer counts only from the caller the session was issued to.
  if (message.kind === "response" && session) deps.elicitations.deliver(session, who, message);
  return reply.code(202).send();
}

/**
 * 2025-11-25 with form elicitation: a session, so later requests can tell that the client declared
 * it (the 2025 handshake is the only place capabilities are stated). The id is bound to the caller's
 * workspace and token, not to the bearer secret, and not stored (session-id.ts, ADR 0425): any
 * replica reads it, a token refresh keeps it; none is issued otherwise.
 */
function issueElicitationSession(
  reply: FastifyReply,
  initializeParams: unknown,
  result: Record<string, unknown>,
  caller: GetSessionResponse | undefined,
): void {
  const params = initializeParams as { capabilities?: unknown } | undefined;
  if (
    caller !== undefined &&
    result.protocolVersion === LATEST_LEGACY_REVISION &&
    supportsFormElicitation(params?.capabilities)
  ) {
    const sessionId = issueSessionId(caller, { revision: LATEST_LEGACY_REVISION, elicitation: true });
    if (sessionId !== undefined) reply.header("mcp-session-id", sessionId);
  }
}

/** Any failure as the JSON-RPC error of its kind, on the stream if one is open; faults are logged. */
function answerFailure(
  deps: PostMessageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: {
    readonly format: ResponseFormat | undefined;
    readonly stream: ResponseStream;
    readonly id: JsonRpcId;
    readonly revision: Revision | undefined;
  },
  error: unknown,
): FastifyReply {
  if (error instanceof ConnectError) {
    if (SERVER_FAULTS.has(error.code)) request.log.error({ err: error }, "core call failed");
  } else if (!(error instanceof JsonRpcError)) {
    request.log.error({ err: error }, "MCP gateway failed");
  }
  const rpcError = error instanceof JsonRpcError ? error : toJsonRpcError(error);
  const framed = answer.revision === MODERN_REVISION ? rpcError.forModernRevision() : rpcError;
  if (answer.stream.isOpen)
    return answer.stream.end({ jsonrpc: "2.0", id: answer.id, error: framed.toErrorObject() });
  const challenge = (e: JsonRpcError) => challengeOf(deps.publicUrl, request.headers.authorization, e);
  return sendError(reply, answer.format ?? "json", answer.id, framed, challenge);
}
