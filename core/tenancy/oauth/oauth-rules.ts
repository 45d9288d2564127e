import { createHash } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../../gen/memory/v1/errors_pb.js";
import { MCP_RESOURCE_PATH } from "../../../lib/gateway-metadata.js";
import { sameResource } from "../../../lib/resource-indicator.js";
import type { Scope } from "../../auth/principal.js";
import { hashSecret, sameHash } from "../../auth/token-format.js";
import { coreError } from "../../errors.js";
import type { Sql, TransactionSql } from "../../store/database.js";

/** Spec "Limits": OAuth authorization codes are valid 10 minutes. */
export const CODE_TTL_SECONDS = 600;
/** Access tokens live an hour; the client refreshes after that (docs/mcp.md). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token unused for 30 days expires; each use rotates it and starts 30 days anew. */
export const REFRESH_TOKEN_TTL_DAYS = 30;

export const ALL_SCOPES: readonly Scope[] = ["read", "write", "admin"];

/** The RFC error codes the OAuth endpoints answer (RFC 6749 5.2 / 4.1.2.1, RFC 7591 3.2.2, RFC 8707). */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "access_denied";

/**
 * An OAuth refusal: INVALID_ARGUMENT (UNAUTHENTICATED for a client that failed authentication) with
 * reason OAUTH_REJECTED and the RFC code in metadata, which the edge answers as `{error,
 * error_description}`.
 */
export function oauthRejected(error: OAuthErrorCode, message: string) {
  return coreError(
    error === "invalid_client" ? Code.Unauthenticated : Code.InvalidArgument,
    ErrorReason.OAUTH_REJECTED,
    message,
    { metadata: { oauth_error: error } },
  );
}

/** The one resource this authorization server issues tokens for: the MCP endpoint. */
export function mcpResource(publicUrl: string): string {
  return `${publicUrl}${MCP_RESOURCE_PATH}`;
}

export { sameResource };

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Redirect URIs a client may register (MCP authorization "Communication Security", OAuth 2.1 2.3.1,
 * RFC 8252 7.3): https, or http on a loopback address for native clients. No fragment, no
 * credentials in the URI. Returns why one is refused, or undefined.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `'${uri.slice(0, 100)}' is not an absolute URI`;
  }
  if (uri.includes("#")) return "a redirect URI must not contain a fragment";
  if (url.username || url.password) return "a redirect URI must not carry credentials";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return "redirect URIs must use https, or http on a loopback address (127.0.0.1, [::1], localhost) for native clients";
}

/** PKCE S256 (RFC 7636 4.6): BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge, constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const expected = Buffer.from(challenge);
  return sameHash(hashSecret(computed.toString()), hashSecret(expected.toString()));
}

/** RFC 7636 4.1: 43-128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url SHA-256: exactly 43 characters. */
export const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface ClientRow {
  id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: "none" | "client_secret_post" | "client_secret_basic";
  secret_hash: Buffer | null;
  scopes: Scope[];
  grant_types: string[];
  client_uri: string | null;
  logo_uri: string | null;
  software_id: string | null;
  software_version: string | null;
  /** The client_id of a client ID metadata document (ADR 0400); null for a registered client. */
  metadata_url: string | null;
  metadata_fetched_at: Date | null;
  created_at: Date;
}

/** The id clients know: the document's URL for a metadata-document client, else the row id. */
export const publicClientId = (row: ClientRow): string => row.metadata_url ?? row.id;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A client as stored: registered ones by their id, metadata-document ones by their URL, as last
 * fetched (the token and revocation endpoints use that: the document was read when the user
 * consented; `ClientMetadataDocuments.resolve` fetches it anew for the authorization endpoint).
 */
export async function findClient(
  sql: Sql | TransactionSql,
  clientId: string,
): Promise<ClientRow | undefined> {
  if (UUID.test(clientId)) {
    const [row] = await sql<
      ClientRow[]
    >`select * from oauth_clients where id = ${clientId} and metadata_url is null`;
    return row;
  }
  if (!clientId.startsWith("https://") && !clientId.startsWith("http://")) return undefined;
  const [row] = await sql<ClientRow[]>`select * from oauth_clients where metadata_url = ${clientId}`;
  return row;
}

/**
 * Client authentication at the token and revocation endpoints (RFC 6749 2.3): a public client
 * ("none") names itself; a confidential one must present its secret (compared by SHA-256 in
 * constant time). Every failure is the same invalid_client.
 */
export async function authenticateClient(
  sql: Sql | TransactionSql,
  clientId: string,
  secret: string | undefined,
): Promise<ClientRow> {
  const client = await findClient(sql, clientId);
  const refused = () => oauthRejected("invalid_client", "client authentication failed");
  if (!client) throw refused();
  if (client.secret_hash === null) return client;
  if (secret === undefined || !sameHash(client.secret_hash, hashSecret(secret))) throw refused();
  return client;
}
