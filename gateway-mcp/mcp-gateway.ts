import type { FastifyPluginAsync } from "fastify";
import type { CoreClients } from "../edge/core-clients.js";

export interface McpGatewayOptions {
  clients: CoreClients;
  version: string;
}

/** snake_case MCP JSON-RPC at /api/mcp/v1 (issue: MCP gateway). */
export const mcpGateway: FastifyPluginAsync<McpGatewayOptions> = async () => {};
