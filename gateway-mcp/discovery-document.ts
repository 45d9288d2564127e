import { PROMPTS } from "./prompts/prompt-list.js";
import { mcpResourceUrl, protectedResourceMetadataUrl } from "./protected-resource-metadata.js";
import { SUPPORTED_REVISIONS } from "./protocol-revisions.js";
import { MCP_PATH, PROTOCOL_VERSION, SERVER_NAME, SERVER_TITLE } from "./server-info.js";
import { TOOLS } from "./tools/tool-list.js";

/**
 * GET /api/mcp/v1 (public; spec: "server metadata for discovery; shape not shown"). Our shape,
 * documented in docs/mcp.md: enough for a client or a person to configure a connection.
 */
export function discoveryDocument(version: string, publicUrl: string): Record<string, unknown> {
  return {
    name: SERVER_NAME,
    title: SERVER_TITLE,
    version,
    // The spec's revision, as before; every revision spoken, newest first (server/discover's list).
    protocol_version: PROTOCOL_VERSION,
    protocol_versions: [...SUPPORTED_REVISIONS],
    endpoint: MCP_PATH,
    transport: "streamable-http",
    response_modes: ["application/json", "text/event-stream"],
    authentication: {
      scheme: "Bearer",
      header: "Authorization",
      token_format: "kmt_<base64url>",
      scopes: ["read", "write", "admin"],
      // Clients that cannot send a header: OAuth 2.1 (MCP authorization 2025-06-18).
      oauth: {
        resource: mcpResourceUrl(publicUrl),
        resource_metadata: protectedResourceMetadataUrl(publicUrl),
        authorization_server: publicUrl,
      },
    },
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
    tools: TOOLS.map((t) => t.name),
    prompts: PROMPTS.map((p) => p.listing.name),
  };
}
