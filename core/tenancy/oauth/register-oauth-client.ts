import type { Scope } from "../../auth/principal.js";
import { generateSecret, hashSecret } from "../../auth/token-format.js";
import type { Database } from "../../store/database.js";
import { ALL_SCOPES, type ClientRow, oauthRejected, redirectUriProblem } from "./oauth-rules.js";

export interface ClientRegistration {
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: string;
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  readonly scope: string | undefined;
  readonly clientUri: string | undefined;
  readonly logoUri: string | undefined;
  readonly softwareId: string | undefined;
  readonly softwareVersion: string | undefined;
}

const AUTH_METHODS = new Set(["none", "client_secret_post", "client_secret_basic"]);
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);
/** The oauth_clients table holds 1 to 10 redirect URIs (migration 0240). */
const MAX_REDIRECT_URIS = 10;

/** Parses an RFC 6749 space-separated scope string into our scopes; undefined for an unknown one. */
export function parseScopes(scope: string): Scope[] | undefined {
  const words = scope.split(" ").filter((w) => w !== "");
  if (words.some((w) => !(ALL_SCOPES as readonly string[]).includes(w))) return undefined;
  return [...new Set(words as Scope[])];
}

function optionalHttpsUri(field: string, value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw oauthRejected("invalid_client_metadata", `${field} must be an absolute https URI`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw oauthRejected("invalid_client_metadata", `${field} must be an http(s) URI`);
  }
  return url.href;
}

/** Registration metadata after the checks: what a row of oauth_clients holds. */
export interface CheckedClientMetadata {
  readonly name: string;
  readonly redirectUris: string[];
  readonly method: string;
  readonly grantTypes: string[];
  readonly scopes: Scope[];
  readonly clientUri: string | null;
  readonly logoUri: string | null;
}

/**
 * The rules every client's metadata meets, registered (RFC 7591) or read from a client ID metadata
 * document (ADR 0400): redirect URIs https or loopback http, supported auth method, grant and
 * response types, known scopes, http(s) client and logo URIs.
 */
export function checkClientMetadata(input: ClientRegistration): CheckedClientMetadata {
  if (input.redirectUris.length === 0) {
    throw oauthRejected("invalid_redirect_uri", "redirect_uris: at least one redirect URI is required");
  }
  if (input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw oauthRejected("invalid_redirect_uri", `redirect_uris: at most ${MAX_REDIRECT_URIS}`);
  }
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw oauthRejected("invalid_redirect_uri", `redirect_uris: ${problem}`);
  }
  const method = input.tokenEndpointAuthMethod || "none";
  if (!AUTH_METHODS.has(method)) {
    throw oauthRejected(
      "invalid_client_metadata",
      `token_endpoint_auth_method '${method.slice(0, 40)}' is not supported; use none, client_secret_post or client_secret_basic`,
    );
  }
  const grantTypes = input.grantTypes.length > 0 ? [...new Set(input.grantTypes)] : ["authorization_code"];
  const unsupported = grantTypes.find((g) => !GRANT_TYPES.has(g));
  if (unsupported !== undefined || !grantTypes.includes("authorization_code")) {
    throw oauthRejected(
      "invalid_client_metadata",
      "grant_types: this server supports authorization_code (required) and refresh_token",
    );
  }
  if (input.responseTypes.some((r) => r !== "code")) {
    throw oauthRejected("invalid_client_metadata", "response_types: only 'code' is supported");
  }
  const scopes = input.scope === undefined ? [...ALL_SCOPES] : parseScopes(input.scope);
  if (scopes === undefined || scopes.length === 0) {
    throw oauthRejected("invalid_client_metadata", "scope: use read, write and/or admin, space-separated");
  }
  return {
    name: input.clientName.trim() || "MCP client",
    redirectUris: [...input.redirectUris],
    method,
    grantTypes,
    scopes,
    clientUri: optionalHttpsUri("client_uri", input.clientUri),
    logoUri: optionalHttpsUri("logo_uri", input.logoUri),
  };
}

/**
 * RFC 7591 open dynamic registration, as MCP clients of the 2025-06-18 revision expect (MCP
 * authorization "Dynamic Client Registration"; kept for them beside client ID metadata documents).
 * Registration grants nothing by itself: a token needs a member's consent. Public clients
 * (token_endpoint_auth_method "none", the default) rely on PKCE; confidential ones get a secret,
 * shown once.
 */
export async function registerOAuthClient(
  deps: { db: Database },
  input: ClientRegistration,
): Promise<{ client: ClientRow; secret: string | undefined }> {
  const m = checkClientMetadata(input);
  const secret = m.method === "none" ? undefined : generateSecret();
  const [row] = await deps.db.sql<ClientRow[]>`
    insert into oauth_clients (client_name, redirect_uris, token_endpoint_auth_method, secret_hash, scopes,
                               grant_types, client_uri, logo_uri, software_id, software_version)
    values (${m.name}, ${m.redirectUris}, ${m.method}, ${secret ? hashSecret(secret) : null}, ${m.scopes},
            ${m.grantTypes}, ${m.clientUri}, ${m.logoUri}, ${input.softwareId ?? null}, ${input.softwareVersion ?? null})
    returning *`;
  if (!row) throw new Error("client insert returned no row");
  return { client: row, secret };
}
