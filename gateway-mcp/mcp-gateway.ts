import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createOriginCheck } from "./allowed-origin.js";
import { createElicitationSessions } from "./elicitation-sessions.js";
import { answerFastifyErrors, readBodiesAsText } from "./fastify-setup.js";
import type { RequestContext } from "./handle-request.js";
import { registerProtectedResourceMetadata } from "./protected-resource-metadata.js";
import { registerDeleteEndpoint } from "./routes/delete-endpoint.js";
import { registerGetEndpoint } from "./routes/get-endpoint.js";
import { registerPostMessage } from "./routes/post-message.js";
import { sendError } from "./send-json-rpc.js";

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

  // The resource-server side of MCP authorization: RFC 9728 metadata beside the endpoint.
  registerProtectedResourceMetadata(app, options.publicUrl);

  // Every method of the endpoint: a browser Origin that is not ours is 403 before anything else.
  const originRefusal = createOriginCheck(options.publicUrl, options.corsOrigins ?? []);
  const checkOrigin = async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = originRefusal(request.headers.origin);
    return refusal === undefined ? undefined : sendError(reply, "json", null, refusal);
  };

  readBodiesAsText(app);
  answerFastifyErrors(app);
  registerGetEndpoint(app, options, checkOrigin);
  registerDeleteEndpoint(app, checkOrigin);
  registerPostMessage(
    app,
    {
      clients: options.clients,
      version: options.version,
      publicUrl: options.publicUrl,
      elicitations: createElicitationSessions(options.clients),
      recordToolCall,
    },
    checkOrigin,
  );
};
