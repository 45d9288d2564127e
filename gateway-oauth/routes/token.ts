import type { FastifyInstance } from "fastify";
import { ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumNumber, enumWord } from "../../lib/proto-enum-words.js";
import { type ClientCredentials, clientCredentials } from "../oauth-client-auth.js";
import { type OAuthRouteContext, publicCall } from "../oauth-context.js";
import { OAuthRequestError } from "../oauth-errors.js";
import { doc, OAUTH_PATHS, SUPPORTED_SCOPES } from "../oauth-metadata.js";
import { BODY_LIMIT_BYTES, type Params, required, requireForm, scopeWords, single } from "../oauth-params.js";
import { openCors, sendOAuthError } from "../oauth-replies.js";

type GrantRequest = Parameters<OAuthRouteContext["tenancy"]["exchangeOAuthGrant"]>[0];

/** POST /api/oauth/token (RFC 6749 3.2): authorization_code with PKCE, and refresh_token (rotated). */
export function registerToken(app: FastifyInstance, context: OAuthRouteContext): void {
  app.post(
    OAUTH_PATHS.token,
    {
      bodyLimit: BODY_LIMIT_BYTES,
      config: { ipRateLimit: "oauthToken" },
      schema: doc(
        "Token endpoint (form-encoded): grant_type authorization_code (code, code_verifier, redirect_uri, resource) or refresh_token (refresh_token, scope to narrow, resource); client_id, or client credentials by post or basic. 200 {access_token (kmt_, 1 h), token_type Bearer, expires_in, refresh_token (kmr_, rotated), scope}; 400 invalid_request / invalid_grant / invalid_scope / invalid_target / unsupported_grant_type; 401 invalid_client; 120 / 60 s per IP",
      ),
    },
    async (request, reply) => {
      let basic = false;
      try {
        const form = requireForm(request);
        const credentials = clientCredentials(request, form);
        basic = credentials.basic;
        const issued = await context.tenancy.exchangeOAuthGrant(
          grantRequest(form, credentials),
          publicCall(context, request),
        );
        return openCors(reply)
          .header("cache-control", "no-store")
          .header("pragma", "no-cache")
          .send({
            access_token: issued.accessToken,
            token_type: "Bearer",
            expires_in: issued.expiresInSeconds,
            ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
            scope: issued.scopes.map((s) => enumWord(ScopeSchema, s)).join(" "),
          });
      } catch (error) {
        return sendOAuthError(request, reply, error, basic);
      }
    },
  );
}

/** The form of one grant type as core's request. */
function grantRequest(form: Params, credentials: ClientCredentials): GrantRequest {
  const grantType = required(form, "grant_type");
  const resource = single(form, "resource");
  const common = {
    clientId: credentials.clientId,
    ...(credentials.clientSecret === undefined ? {} : { clientSecret: credentials.clientSecret }),
    grantType,
    ...(resource === undefined ? {} : { resource }),
  };
  if (grantType === "authorization_code") {
    const redirectUri = single(form, "redirect_uri");
    return {
      ...common,
      code: required(form, "code"),
      codeVerifier: required(form, "code_verifier"),
      ...(redirectUri === undefined ? {} : { redirectUri }),
    };
  }
  if (grantType === "refresh_token") {
    const scopes = scopeWords(single(form, "scope")) ?? [];
    const unknown = scopes.find((s) => !SUPPORTED_SCOPES.includes(s));
    if (unknown !== undefined) {
      throw new OAuthRequestError("invalid_scope", `unknown scope '${unknown.slice(0, 40)}'`);
    }
    return {
      ...common,
      refreshToken: required(form, "refresh_token"),
      scopes: scopes.map((s) => enumNumber(ScopeSchema, s)),
    };
  }
  throw new OAuthRequestError(
    "unsupported_grant_type",
    "grant_type must be authorization_code or refresh_token",
  );
}
