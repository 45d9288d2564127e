import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { MCP_RESOURCE_PATH } from "../../lib/gateway-metadata.js";

/** Where the OAuth endpoints live (docs/mcp.md "Connecting with OAuth"). */
export const OAUTH_PATHS = {
  authorize: "/api/oauth/authorize",
  signIn: "/api/oauth/signin",
  token: "/api/oauth/token",
  register: "/api/oauth/register",
  revoke: "/api/oauth/revoke",
  authorizationServerMetadata: "/.well-known/oauth-authorization-server",
  protectedResourceMetadata: "/.well-known/oauth-protected-resource",
} as const;

export const SUPPORTED_SCOPES = ["read", "write", "admin"] as const;

/** The MCP endpoint as an RFC 8707 resource identifier: `${PUBLIC_URL}/api/mcp/v1`. */
export const mcpResourceUrl = (publicUrl: string): string => `${publicUrl}${MCP_RESOURCE_PATH}`;

/**
 * RFC 9728 3.1: the metadata URL of a resource with a path has the path after the well-known
 * segment. This is the URL the 401's `resource_metadata` names; the same document is also served
 * at the bare well-known path.
 */
export const protectedResourceMetadataUrl = (publicUrl: string): string =>
  `${publicUrl}${OAUTH_PATHS.protectedResourceMetadata}${MCP_RESOURCE_PATH}`;

/** RFC 9728 protected resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(publicUrl: string): OAuthProtectedResourceMetadata {
  return {
    resource: mcpResourceUrl(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Memory service MCP endpoint",
    resource_documentation: `${publicUrl}/api/docs`,
  };
}

/** RFC 8414 authorization server metadata; the issuer is PUBLIC_URL. */
export function authorizationServerMetadata(publicUrl: string): OAuthMetadata {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${publicUrl}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    code_challenge_methods_supported: ["S256"],
    service_documentation: `${publicUrl}/api/docs`,
    // RFC 9207: the authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}

/** OpenAPI description of an OAuth route: public (the client authenticates in the request), tag oauth. */
export function doc(summary: string) {
  return { summary, tags: ["oauth"], security: [], "x-auth": "None" };
}
