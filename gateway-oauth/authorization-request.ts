import type { FastifyRequest } from "fastify";
import { type OAuthClient, ScopeSchema } from "../gen/memory/v1/tenancy_service_pb.js";
import { enumWord } from "../lib/proto-enum-words.js";
import { sameResource } from "../lib/resource-indicator.js";
import { type OAuthRouteContext, sessionCall } from "./oauth-context.js";
import { OAuthRequestError } from "./oauth-errors.js";
import { mcpResourceUrl } from "./oauth-metadata.js";
import { type Params, required, scopeWords, single } from "./oauth-params.js";

/**
 * The authorization request (RFC 6749 4.1.1 with PKCE and RFC 8707 resource), checked in the RFC's
 * two phases: an unknown client or a redirect URI that is not the client's is shown to the user and
 * never redirected to (phase 1, `OAuthRequestError`); every later problem goes back to the client's
 * redirect URI as `error=…` (phase 2, `RedirectableError`).
 */

/** The client and where its answer goes: what phase 1 establishes. */
export interface ClientAndRedirect {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  /** Whether the request named redirect_uri (the token request must then repeat it). */
  readonly redirectUriGiven: boolean;
}

/** A validated authorization request. */
export interface AuthorizationRequest extends ClientAndRedirect {
  readonly state: string | undefined;
  readonly scopes: string[];
  readonly codeChallenge: string;
  readonly resource: string | undefined;
}

/** A refusal that is sent back to the client at its redirect URI (RFC 6749 4.1.2.1). */
export class RedirectableError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Phase 1: the client (registered, or a client ID metadata document core fetched) and the redirect
 * URI, compared by exact string with the client's (RFC 9700 2.1; OAuth 2.1 2.3.1).
 */
export async function checkClientAndRedirect(
  context: OAuthRouteContext,
  request: FastifyRequest,
  params: Params,
): Promise<ClientAndRedirect> {
  const clientId = required(params, "client_id");
  const { client } = await context.tenancy.getOAuthClient({ clientId }, sessionCall(context, request));
  if (!client) throw new OAuthRequestError("invalid_client", "unknown client_id");
  const given = single(params, "redirect_uri");
  if (given !== undefined) {
    if (!client.redirectUris.includes(given)) {
      throw new OAuthRequestError("invalid_request", "redirect_uri is not registered for this client");
    }
    return { client, redirectUri: given, redirectUriGiven: true };
  }
  const [only] = client.redirectUris;
  if (client.redirectUris.length !== 1 || only === undefined) {
    throw new OAuthRequestError("invalid_request", "redirect_uri is required: the client registered several");
  }
  return { client, redirectUri: only, redirectUriGiven: false };
}

/** Phase 2: response type, PKCE, scopes and resource; problems are redirected to the client. */
export function checkAuthorizationRequest(
  publicUrl: string,
  phase1: ClientAndRedirect,
  params: Params,
  state: string | undefined,
): AuthorizationRequest {
  if (single(params, "response_type") !== "code") {
    throw new RedirectableError("unsupported_response_type", "response_type must be 'code'");
  }
  const codeChallenge = checkPkce(params);
  const scopes = checkScopes(phase1.client, params);
  const resource = single(params, "resource");
  if (resource !== undefined && !sameResource(resource, mcpResourceUrl(publicUrl))) {
    throw new RedirectableError(
      "invalid_target",
      `this server issues tokens only for the resource ${mcpResourceUrl(publicUrl)}`,
    );
  }
  return { ...phase1, state, scopes, codeChallenge, resource };
}

/** OAuth 2.1 4.1.1: PKCE is required, with S256. */
function checkPkce(params: Params): string {
  const codeChallenge = single(params, "code_challenge");
  if (codeChallenge === undefined) {
    throw new RedirectableError("invalid_request", "PKCE is required: send code_challenge (S256)");
  }
  if (single(params, "code_challenge_method") !== "S256") {
    throw new RedirectableError("invalid_request", "code_challenge_method must be S256");
  }
  if (!S256_CHALLENGE.test(codeChallenge)) {
    throw new RedirectableError("invalid_request", "code_challenge must be 43 base64url characters (S256)");
  }
  return codeChallenge;
}

/** RFC 6749 3.3: no scope asks for all the client may have; a scope outside them is invalid_scope. */
function checkScopes(client: OAuthClient, params: Params): string[] {
  const allowed = client.scopes.map((s) => enumWord(ScopeSchema, s));
  const asked = scopeWords(single(params, "scope"));
  const scopes = asked === undefined || asked.length === 0 ? allowed : asked;
  const outside = scopes.find((s) => !allowed.includes(s));
  if (outside !== undefined) {
    throw new RedirectableError(
      "invalid_scope",
      `scope '${outside.slice(0, 40)}' is not available to this client`,
    );
  }
  return scopes;
}
