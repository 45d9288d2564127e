import type { OAuthMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ScopeSchema } from "../gen/memory/v1/tenancy_service_pb.js";
import { MCP_RESOURCE_PATH } from "../lib/gateway-metadata.js";
import { enumWords } from "../lib/proto-enum-words.js";

/** Where the OAuth endpoints live (docs/mcp.md "Connecting with OAuth"). */
export const OAUTH_PATHS = {
  authorize: "/api/oauth/authorize",
  signIn: "/api/oauth/signin",
  token: "/api/oauth/token",
  register: "/api/oauth/register",
  revoke: "/api/oauth/revoke",
  authorizationServerMetadata: "/.well-known/oauth-authorization-server",
} as const;

/** The scopes of the proto (read, write, admin), as RFC 6749 scope words. */
export const SUPPORTED_SCOPES: readonly string[] = enumWords(ScopeSchema);

/**
 * The one resource this server issues tokens for (RFC 8707): the MCP endpoint, whose gateway
 * publishes the matching protected-resource metadata (gateway-mcp/protected-resource-metadata.ts).
 */
export const mcpResourceUrl = (publicUrl: string): string => `${publicUrl}${MCP_RESOURCE_PATH}`;

/**
 * RFC 8414 authorization server metadata; the issuer is PUBLIC_URL.
 */
export function authorizationServerMetadata(
  publicUrl: string,
): OAuthMetadata & { readonly client_id_metadata_document_supported: boolean } {
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
    // RFC 9207: every authorization response (code or error) carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // draft-ietf-oauth-client-id-metadata-document 5: an https URL may be the client_id (ADR 0400).
    client_id_metadata_document_supported: true,
  };
}

/** OpenAPI description of an OAuth route: public (the client authenticates in the request), tag oauth. */
export function doc(summary: string) {
  return { summary, tags: ["oauth"], security: [], "x-auth": "None" };
}
