import { randomUUID } from "node:crypto";
import type { CallOptions } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { forwardedHeaders } from "../gateway-kit/credentials.js";
import type { GetSessionResponse } from "../gen/memory/v1/tenancy_service_pb.js";
import { GATEWAY_HEADER, MCP_GATEWAY } from "../lib/gateway-metadata.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createOriginCheck } from "./allowed-origin.js";
import { authenticateCaller } from "./authenticate-caller.js";
import { classifyRequest } from "./classify-request.js";
import { discoveryDocument } from "./discovery-document.js";
import { frameResult, handleRequest, type RequestContext } from "./handle-request.js";
import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidRequest, JsonRpcError } from "./json-rpc-error.js";
import {
  acceptsEventStream,
  negotiateResponseFormat,
  type ResponseFormat,
} from "./negotiate-response-format.js";
import { type JsonRpcId, parseJsonRpcMessage } from "./parse-json-rpc-message.js";
import { challengeOf, registerProtectedResourceMetadata } from "./protected-resource-metadata.js";
import {
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  type Revision,
  supportsFormElicitation,
} from "./protocol-revisions.js";
import { CORE_CALL_TIMEOUT_MS, MCP_BODY_LIMIT_BYTES, MCP_PATH } from "./server-info.js";
import { belongsTo, issueSessionId, type McpSession, readSessionId } from "./session-id.js";
import { sseEvent } from "./sse-event.js";
import { toJsonRpcError } from "./to-json-rpc-error.js";
import type { UserConfirmation } from "./tools/tool-definition.js";
import {
  ELICITATION_TIMEOUT_MS,
  elicitationConfirmation,
  multiRoundTripConfirmation,
} from "./user-confirmation.js";

export interface McpGatewayOptions {
  clients: CoreClients;
  version: string;
  /** PUBLIC_URL: the 401's WWW-Authenticate names the protected resource metadata under it. */
  publicUrl: string;
  /** CORS_ORIGINS: browser origins besides PUBLIC_URL's that may call the endpoint. */
  corsOrigins?: readonly string[];
  /** The process's metrics: tool calls are recorded by tool and outcome. */
  metrics?: ServiceMetrics;
}

/** Core failures that are bugs or data problems rather than answers, worth an error log line. */
const SERVER_FAULTS: ReadonlySet<Code> = new Set([Code.Unknown, Code.Internal, Code.DataLoss]);

function send(reply: FastifyReply, format: ResponseFormat, status: number, message: object): FastifyReply {
  const text = JSON.stringify(message);
  if (format === "sse") {
    return reply
      .code(status)
      .header("content-type", "text/event-stream")
      .header("cache-control", "no-cache, no-transform")
      .send(sseEvent(text));
  }
  return reply.code(status).header("content-type", "application/json; charset=utf-8").send(text);
}

function sendError(
  reply: FastifyReply,
  format: ResponseFormat,
  id: JsonRpcId,
  error: JsonRpcError,
  challenge?: (error: JsonRpcError) => string | undefined,
): FastifyReply {
  reply.headers(error.headers);
  // MCP authorization (2025-06-18) / RFC 9728 5.1: a 401 points the client at the resource metadata,
  // from which it finds the authorization server; with a token that was refused, RFC 6750 3.1's
  // invalid_token too. A 403 for a missing scope names the scopes to ask for (2025-11-25).
  const header = challenge?.(error);
  if (header !== undefined) reply.header("www-authenticate", header);
  // Only the answer to a well-formed request travels in the negotiated format; transport errors
  // (4xx) are plain JSON, as no stream was ever opened for them.
  return send(reply, error.httpStatus === 200 ? format : "json", error.httpStatus, {
    jsonrpc: "2.0",
    id,
    error: error.toErrorObject(),
  });
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

/**
 * The answer to one POST as a Streamable HTTP event stream opened only when needed: a 2025-11-25
 * tools/call that elicits sends its elicitation/create request first, then the result (2025-11-25
 * transport "Sending Messages": requests related to the originating request on its stream).
 */
class ResponseStream {
  private opened = false;

  constructor(private readonly reply: FastifyReply) {}

  get isOpen(): boolean {
    return this.opened;
  }

  write(message: object): void {
    if (!this.opened) {
      this.reply.hijack();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.reply.getHeaders())) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
      }
      this.reply.raw.writeHead(200, {
        ...headers,
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      });
      this.opened = true;
    }
    this.reply.raw.write(sseEvent(JSON.stringify(message)));
  }

  end(message: object): FastifyReply {
    this.write(message);
    this.reply.raw.end();
    return this.reply;
  }

  /** Calls `listener` if the client goes away before the stream ended; returns the unsubscribe. */
  onClose(listener: () => void): () => void {
    this.reply.raw.on("close", listener);
    return () => this.reply.raw.off("close", listener);
  }
}

/**
 * snake_case MCP JSON-RPC at /api/mcp/v1 (spec "MCP endpoint", "MCP tools (11)", plus
 * service_erase_memory). A thin JSON-RPC
 * layer rather than the SDK's server transport: the spec wants one plain JSON object by default
 * (the SDK transport insists on SSE-capable clients), the server keeps no session state (the one
 * Mcp-Session-Id it issues, to 2025-11-25 clients that declared elicitation, carries what it means:
 * session-id.ts), so any replica can answer, and every error goes through the one mapping module.
 */
export const mcpGateway: FastifyPluginAsync<McpGatewayOptions> = async (app, options) => {
  const metrics = options.metrics;
  const recordToolCall: RequestContext["recordToolCall"] = metrics
    ? (tool, outcome, seconds) => metrics.mcpToolCalls.observe({ tool, outcome }, seconds)
    : undefined;
  const challengeFor = (request: FastifyRequest) => (error: JsonRpcError) =>
    challengeOf(options.publicUrl, request.headers.authorization, error);

  // The resource-server side of MCP authorization: RFC 9728 metadata beside the endpoint.
  registerProtectedResourceMetadata(app, options.publicUrl);

  // Every method of the endpoint: a browser Origin that is not ours is 403 before anything else.
  const originRefusal = createOriginCheck(options.publicUrl, options.corsOrigins ?? []);
  const checkOrigin = async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = originRefusal(request.headers.origin);
    return refusal === undefined ? undefined : sendError(reply, "json", null, refusal);
  };

  // Every body reaches the handler as text, so a wrong type or bad JSON gets a JSON-RPC answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  // Errors Fastify raises before the handler runs (oversized body, broken Content-Length).
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, "MCP request failed");
    const rpcError =
      status === 413
        ? invalidRequest(`Request body larger than ${MCP_BODY_LIMIT_BYTES / 1024 / 1024} MiB`, 413)
        : status < 500
          ? invalidRequest(`Invalid request: ${error.message}`, status)
          : new JsonRpcError(JSON_RPC_CODES.internalError, "internal error", { httpStatus: 500 });
    return sendError(reply, "json", null, rpcError);
  });

  app.get(MCP_PATH, { onRequest: checkOrigin }, async (request, reply) => {
    // Transport "Listening for Messages": a GET asking for an event stream opens server-initiated
    // messages; this server sends none, so the transport's answer is 405. Any other GET is the
    // spec's public discovery document.
    if (negotiateResponseFormat(request.headers.accept) === "sse") {
      return sendError(
        reply.header("allow", "GET, POST"),
        "json",
        null,
        invalidRequest(`No server-initiated stream here: POST JSON-RPC messages to ${MCP_PATH}`, 405),
      );
    }
    return reply.send(discoveryDocument(options.version, options.publicUrl));
  });

  app.delete(MCP_PATH, { onRequest: checkOrigin }, async (_request, reply) =>
    // Transport "Session Management": sessions hold no server state (session-id.ts), none to end.
    sendError(
      reply.header("allow", "GET, POST"),
      "json",
      null,
      invalidRequest(
        "This server is stateless: an Mcp-Session-Id it issued holds no server state, so there is no session to end",
        405,
      ),
    ),
  );

  /**
   * 2025-11-25 elicitations waiting for the client's answer, by session and request id. In this
   * process only: the answer's POST must reach the gateway that holds the stream (one gateway, or
   * a balancer keeping a client's connections together); one that lands elsewhere is accepted and
   * dropped, and the waiting call ends unconfirmed when its stream closes or the wait times out.
   */
  const waitingAnswers = new Map<
    string,
    (answer: { result?: unknown; error?: unknown } | undefined) => void
  >();

  /**
   * A session id used by a caller it was not issued to (another token or workspace): 404, as the
   * 2025 transport answers a session it does not know; the client starts a new one with initialize.
   */
  const foreignSession = () =>
    invalidRequest(
      "Session not found: this Mcp-Session-Id was issued to another token; send initialize for a new session",
      404,
    );
  /** The session is the caller's (core tells who the caller is), or the request is refused. */
  const checkSessionOwner = async (session: McpSession, callOptions: CallOptions) => {
    if (!belongsTo(session, await options.clients.tenancy.getSession({}, callOptions)))
      throw foreignSession();
  };

  /** How this request may ask the user (ToolContext.confirmation), if at all. */
  const confirmationFor = (
    request: FastifyRequest,
    revision: Revision,
    params: unknown,
    clientCapabilities: Record<string, unknown> | undefined,
    stream: ResponseStream,
    callOptions: CallOptions,
  ): UserConfirmation | undefined => {
    const credential = request.headers.authorization ?? "";
    if (revision === MODERN_REVISION) {
      return supportsFormElicitation(clientCapabilities)
        ? multiRoundTripConfirmation(
            typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {},
            credential,
          )
        : undefined;
    }
    if (revision !== LATEST_LEGACY_REVISION || !acceptsEventStream(request.headers.accept)) return undefined;
    const session = readSessionId(request.headers["mcp-session-id"]);
    if (!session?.elicitation) return undefined;
    return elicitationConfirmation(async (method, requestParams) => {
      // Only when the user is to be asked: one more (cheap) core call to learn whose session it is.
      await checkSessionOwner(session, callOptions);
      return new Promise((resolve) => {
        const requestId = `elicitation-${randomUUID()}`;
        const key = `${session.id}\u0000${requestId}`;
        const finish = (answer: { result?: unknown; error?: unknown } | undefined) => {
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
    });
  };

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
        const callOptions: CallOptions = {
          // Marks MCP traffic so core applies the spec's per-IP MCP limit (api plan: 60 / 60 s).
          headers: { ...forwardedHeaders(request, "bearer"), [GATEWAY_HEADER]: MCP_GATEWAY },
          timeoutMs: CORE_CALL_TIMEOUT_MS,
        };
        const confirmation =
          message.kind === "request" && message.method === "tools/call"
            ? confirmationFor(
                request,
                era.revision,
                message.params,
                "clientCapabilities" in era ? era.clientCapabilities : undefined,
                stream,
                callOptions,
              )
            : undefined;
        let caller: GetSessionResponse | undefined;
        const context: RequestContext = {
          clients: options.clients,
          callOptions,
          version: options.version,
          revision: era.revision,
          onAuthenticated: (who) => {
            caller = who;
          },
          ...(confirmation ? { confirmation } : {}),
          ...(recordToolCall ? { recordToolCall } : {}),
        };
        if (message.kind !== "request") {
          // Transport "Sending Messages": an accepted notification or response is 202 with no body.
          const who = await authenticateCaller(context);
          const session = readSessionId(request.headers["mcp-session-id"]);
          if (message.kind === "response" && session) {
            // An answer counts only from the caller the session was issued to.
            if (!belongsTo(session, who)) throw foreignSession();
            waitingAnswers.get(`${session.id}\u0000${String(message.id)}`)?.(message);
          }
          return reply.code(202).send();
        }
        const result = frameResult(
          message.method,
          await handleRequest(message.method, message.params, context),
          era.revision,
          options.version,
        );
        if (message.method === "initialize") {
          // 2025-11-25 with form elicitation: a session, so later requests can tell that the client
          // declared it (the 2025 handshake is the only place capabilities are stated). The id is
          // bound to the caller's workspace and token, not to the bearer secret, and not stored
          // (session-id.ts, ADR 0425): any replica reads it, a token refresh keeps it; none is
          // issued otherwise.
          const params = message.params as { capabilities?: unknown } | undefined;
          if (
            caller !== undefined &&
            result.protocolVersion === LATEST_LEGACY_REVISION &&
            supportsFormElicitation(params?.capabilities)
          ) {
            const sessionId = issueSessionId(caller, { revision: LATEST_LEGACY_REVISION, elicitation: true });
            if (sessionId !== undefined) reply.header("mcp-session-id", sessionId);
          }
        }
        if (stream.isOpen) return stream.end({ jsonrpc: "2.0", id, result });
        return send(reply, format, 200, { jsonrpc: "2.0", id, result });
      } catch (error) {
        if (error instanceof ConnectError) {
          if (SERVER_FAULTS.has(error.code)) request.log.error({ err: error }, "core call failed");
        } else if (!(error instanceof JsonRpcError)) {
          request.log.error({ err: error }, "MCP gateway failed");
        }
        const rpcError = error instanceof JsonRpcError ? error : toJsonRpcError(error);
        const framed = revision === MODERN_REVISION ? rpcError.forModernRevision() : rpcError;
        if (stream.isOpen) return stream.end({ jsonrpc: "2.0", id, error: framed.toErrorObject() });
        return sendError(reply, format ?? "json", id, framed, challengeFor(request));
      }
    },
  );
};
