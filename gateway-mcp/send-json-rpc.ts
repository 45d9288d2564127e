import type { FastifyReply } from "fastify";
import type { JsonRpcError } from "./json-rpc-error.js";
import type { ResponseFormat } from "./negotiate-response-format.js";
import type { JsonRpcId } from "./parse-json-rpc-message.js";
import { sseEvent } from "./sse-event.js";

/** One JSON-RPC message as the whole answer, plain JSON or a one-event stream. */
export function send(
  reply: FastifyReply,
  format: ResponseFormat,
  status: number,
  message: object,
): FastifyReply {
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

/** A JSON-RPC error as the whole answer, with its headers and, for 401/403, the challenge. */
export function sendError(
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
