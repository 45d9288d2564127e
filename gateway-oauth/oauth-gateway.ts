import type { FastifyError, FastifyPluginAsync } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import type { OAuthRouteContext } from "./oauth-context.js";
import { doc, OAUTH_PATHS } from "./oauth-metadata.js";
import { BODY_LIMIT_BYTES, FORM, paramsOf } from "./oauth-params.js";
import { openCors } from "./oauth-replies.js";
import { registerAuthorizationServerMetadata } from "./routes/authorization-server-metadata.js";
import { registerAuthorize } from "./routes/authorize.js";
import { registerConsent } from "./routes/consent.js";
import { registerClientRegistration } from "./routes/register-client.js";
import { registerRevokeToken } from "./routes/revoke-token.js";
import { registerSignIn } from "./routes/sign-in.js";
import { registerToken } from "./routes/token.js";

export interface OAuthGatewayOptions {
  readonly clients: CoreClients;
  readonly publicUrl: string;
  readonly coreTimeoutMs?: number;
}

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (MCP authorization 2025-06-18 and
 * 2025-11-25): RFC 8414 metadata, client ID metadata documents and RFC 7591 registration, the
 * authorization code flow with PKCE S256 and RFC 8707 resource binding (browser pages: sign-in,
 * consent), refresh with rotation, RFC 7009 revocation, RFC 9207 `iss`. A gateway of its own: it
 * translates the OAuth wire formats and keeps no state — clients, codes and tokens live in core
 * (TenancyService). The MCP gateway is the resource server (gateway-mcp/protected-resource-metadata.ts).
 * ADR 0240 says why not the SDK's Express router or oidc-provider; ADR 0400 covers the metadata documents.
 */
export const oauthGateway: FastifyPluginAsync<OAuthGatewayOptions> = async (app, options) => {
  const context: OAuthRouteContext = {
    tenancy: options.clients.tenancy,
    publicUrl: options.publicUrl,
    coreTimeoutMs: options.coreTimeoutMs ?? 30_000,
  };

  // Form bodies (token, revocation, consent, sign-in) as a multi-map, so a repeated parameter is seen.
  app.addContentTypeParser(FORM, { parseAs: "string", bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) =>
    done(null, paramsOf(new URLSearchParams(String(body)))),
  );

  // Bad JSON, an oversized body: the RFC error shape, never a 500.
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, "OAuth request failed");
      return reply.code(500).send({ error: "server_error", error_description: "internal error" });
    }
    return reply.code(status).send({ error: "invalid_request", error_description: error.message });
  });

  for (const path of [
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.revoke,
    OAUTH_PATHS.authorizationServerMetadata,
  ]) {
    app.options(
      path,
      { schema: doc("CORS preflight for browser-based MCP clients") },
      async (_request, reply) =>
        openCors(reply).header("access-control-allow-methods", "GET, POST, OPTIONS").code(204).send(),
    );
  }

  registerAuthorizationServerMetadata(app, context);
  registerClientRegistration(app, context);
  registerToken(app, context);
  registerRevokeToken(app, context);
  registerAuthorize(app, context);
  registerConsent(app, context);
  registerSignIn(app, context);
};
