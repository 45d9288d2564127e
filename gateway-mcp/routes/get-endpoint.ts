import type { FastifyInstance } from "fastify";
import type { OriginHook } from "../allowed-origin.js";
import { discoveryDocument } from "../discovery-document.js";
import { invalidRequest } from "../json-rpc-error.js";
import { negotiateResponseFormat } from "../negotiate-response-format.js";
import { sendError } from "../send-json-rpc.js";
import { MCP_PATH } from "../server-info.js";

/**
 * GET on the endpoint. Transport "Listening for Messages": a GET asking for an event stream opens
 * server-initiated messages; this server sends none, so the transport's answer is 405. Any other GET
 * is the spec's public discovery document.
 */
export function registerGetEndpoint(
  app: FastifyInstance,
  options: { readonly version: string; readonly publicUrl: string },
  checkOrigin: OriginHook,
): void {
  app.get(MCP_PATH, { onRequest: checkOrigin }, async (request, reply) => {
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
}
