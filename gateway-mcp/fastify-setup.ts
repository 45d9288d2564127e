import type { FastifyError, FastifyInstance } from "fastify";
import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidRequest, JsonRpcError } from "./json-rpc-error.js";
import { sendError } from "./send-json-rpc.js";
import { MCP_BODY_LIMIT_BYTES } from "./server-info.js";

/** Every body reaches the handler as text, so a wrong type or bad JSON gets a JSON-RPC answer. */
export function readBodiesAsText(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
}

/** Errors Fastify raises before the handler runs (oversized body, broken Content-Length) as JSON-RPC errors. */
export function answerFastifyErrors(app: FastifyInstance): void {
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
}
