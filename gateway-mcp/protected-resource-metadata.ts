import type { OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ScopeSchema } from "../gen/memory/v1/tenancy_service_pb.js";
import { MCP_RESOURCE_PATH } from "../lib/gateway-metadata.js";
import { enumWords } from "../lib/proto-enum-words.js";
import type { JsonRpcError } from "./json-rpc-error.js";

/**
 * The resource-server side of MCP authorization: the MCP endpoint is an OAuth protected resource
 * whose authorization server (gateway-oauth/, ADR 0240) lives at PUBLIC_URL. This module says so
 * (RFC 9728 metadata) and builds the challenges of the 401 and the 403 (RFC 6750 3.1).
 */

export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The MCP endpoint as an RFC 8707 resource identifier: `${PUBLIC_URL}/api/mcp/v1`. */
export const mcpResourceUrl = (publicUrl: string): string => `${publicUrl}${MCP_RESOURCE_PATH}`;

/**
 * RFC 9728 3.1: the metadata URL of a resource with a path has the path after the well-known
 * segment (`/.well-known/oauth-protected-resource/api/mcp/v1`). This is the URL the challenges'
 * `resource_metadata` names; the same document is also served at the bare well-known path, the
 * second place MCP clients look (MCP authorization 2025-11-25, "Protected Resource Metadata
 * Discovery Requirements").
 */
export const protectedResourceMetadataUrl = (publicUrl: string): string =>
  `${publicUrl}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_RESOURCE_PATH}`;

/** RFC 9728 protected resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(publicUrl: string): OAuthProtectedResourceMetadata {
  return {
    resource: mcpResourceUrl(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: enumWords(ScopeSchema),
    bearer_methods_supported: ["header"],
    resource_name: "Memory service MCP endpoint",
    resource_documentation: `${publicUrl}/api/docs`,
  };
}

/**
 * The WWW-Authenticate of a refusal at the MCP endpoint. 401: no token, or one that was refused
 * (RFC 6750 3.1 invalid_token). 403: a valid token without the scope the method needs
 * (`insufficient_scope` with the scopes that would do, so the client can ask the user for more:
 * MCP authorization 2025-11-25, "Scope Challenge Handling").
 */
export function bearerChallenge(
  publicUrl: string,
  refusal:
    | { readonly kind: "missing" }
    | { readonly kind: "invalid_token" }
    | {
        readonly kind: "insufficient_scope";
        readonly scopes: readonly string[];
        readonly description: string;
      },
): string {
  const metadata = `resource_metadata="${protectedResourceMetadataUrl(publicUrl)}"`;
  switch (refusal.kind) {
    case "missing":
      return `Bearer realm="memory-service", ${metadata}`;
    case "invalid_token":
      return `Bearer realm="memory-service", ${metadata}, error="invalid_token"`;
    case "insufficient_scope":
      return `Bearer realm="memory-service", ${metadata}, error="insufficient_scope", scope="${refusal.scopes.join(" ")}", error_description="${refusal.description.replaceAll('"', "'")}"`;
  }
}

/**
 * The challenge of a refused MCP request, if its status calls for one: 401 (no token, or one that
 * was refused), 403 with the scopes to ask for (to-json-rpc-error.ts puts them in `data.scope`).
 */
export function challengeOf(
  publicUrl: string,
  authorization: string | undefined,
  error: JsonRpcError,
): string | undefined {
  if (error.httpStatus === 401) {
    return bearerChallenge(publicUrl, { kind: authorization === undefined ? "missing" : "invalid_token" });
  }
  const scope = error.data?.scope;
  if (error.httpStatus === 403 && typeof scope === "string") {
    return bearerChallenge(publicUrl, {
      kind: "insufficient_scope",
      scopes: scope.split(" "),
      description: error.message,
    });
  }
  return undefined;
}

const openCors = (reply: FastifyReply) =>
  reply
    .header("access-control-allow-origin", "*")
    .header("access-control-allow-headers", "authorization, content-type, mcp-protocol-version");

const doc = (summary: string) => ({ summary, tags: ["oauth"], security: [], "x-auth": "None" });

/** GET (and the CORS preflight of) the metadata at the path-aware and the bare well-known URL. */
export function registerProtectedResourceMetadata(app: FastifyInstance, publicUrl: string): void {
  const document = protectedResourceMetadata(publicUrl);
  for (const path of [
    PROTECTED_RESOURCE_METADATA_PATH,
    `${PROTECTED_RESOURCE_METADATA_PATH}${MCP_RESOURCE_PATH}`,
  ]) {
    app.get(
      path,
      {
        schema: doc(
          "RFC 9728 protected resource metadata of the MCP endpoint (resource, authorization server, scopes)",
        ),
      },
      async (_request, reply) => openCors(reply).send(document),
    );
    app.options(
      path,
      { schema: doc("CORS preflight for browser-based MCP clients") },
      async (_request, reply) =>
        openCors(reply).header("access-control-allow-methods", "GET, OPTIONS").code(204).send(),
    );
  }
}
