import type { FastifyInstance } from "fastify";
import type { OriginHook } from "../allowed-origin.js";
import { invalidRequest } from "../json-rpc-error.js";
import { sendError } from "../send-json-rpc.js";
import { MCP_PATH } from "../server-info.js";

/** DELETE on the endpoint. Transport "Session Management": sessions hold no server state (session-id.ts), none to end. */
export function registerDeleteEndpoint(app: FastifyInstance, checkOrigin: OriginHook): void {
  app.delete(MCP_PATH, { onRequest: checkOrigin }, async (_request, reply) =>
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
}
