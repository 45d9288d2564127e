import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../../gateway-kit/core-clients.js";
import { forwardedHeaders } from "../../gateway-kit/credentials.js";
import { ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { MCP_RESOURCE_PATH } from "../../lib/gateway-metadata.js";
import { enumNumber, enumWord } from "../../lib/proto-enum-words.js";
import { registerAuthorizationEndpoint } from "./authorization-endpoint.js";
import { clientCredentials } from "./oauth-client-auth.js";
import { OAuthRequestError, toOAuthError } from "./oauth-errors.js";
import {
  authorizationServerMetadata,
  doc,
  OAUTH_PATHS,
  protectedResourceMetadata,
  SUPPORTED_SCOPES,
} from "./oauth-metadata.js";
import { paramsOf, required, scopeWords, single } from "./oauth-params.js";

export interface OAuthGatewayOptions {
  readonly clients: CoreClients;
  readonly publicUrl: string;
  readonly coreTimeoutMs?: number;
}

const FORM = "application/x-www-form-urlencoded";

/** OAuth requests are small; anything larger is not one. */
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The OAuth 2.1 authorization server of the MCP endpoint (MCP authorization, revision 2025-06-18):
 * RFC 9728 and RFC 8414 metadata, RFC 7591 registration, the authorization code flow with PKCE S256
 * and RFC 8707 resource binding, refresh with rotation, RFC 7009 revocation. Fastify routes that
 * speak the wire formats (with the MCP SDK's schemas and types) and keep no state: codes, clients
 * and tokens live in core (TenancyService), reached over the Connect clients. ADR 0240 says why not
 * the SDK's Express router or oidc-provider.
 */
export const oauthGateway: FastifyPluginAsync<OAuthGatewayOptions> = async (app, options) => {
  const { tenancy } = options.clients;
  const coreTimeoutMs = options.coreTimeoutMs ?? 30_000;
  const publicCall = (request: FastifyRequest) => ({
    headers: forwardedHeaders(request, "none"),
    timeoutMs: coreTimeoutMs,
  });

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

  /** Metadata, registration, token and revocation are called from browser-based clients too. */
  const openCors = (reply: FastifyReply) =>
    reply
      .header("access-control-allow-origin", "*")
      .header("access-control-allow-headers", "authorization, content-type, mcp-protocol-version");
  for (const path of [
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.revoke,
    OAUTH_PATHS.authorizationServerMetadata,
    OAUTH_PATHS.protectedResourceMetadata,
    `${OAUTH_PATHS.protectedResourceMetadata}${MCP_RESOURCE_PATH}`,
  ]) {
    app.options(
      path,
      { schema: doc("CORS preflight for browser-based MCP clients") },
      async (_request, reply) =>
        openCors(reply).header("access-control-allow-methods", "GET, POST, OPTIONS").code(204).send(),
    );
  }

  const sendError = (request: FastifyRequest, reply: FastifyReply, error: unknown, basic = false) => {
    const answer = toOAuthError(error);
    if (answer.status >= 500) request.log.error({ err: error }, "OAuth endpoint failed");
    if (answer.status === 401 && basic) reply.header("www-authenticate", 'Basic realm="oauth"');
    return openCors(reply)
      .code(answer.status)
      .headers(answer.headers)
      .header("cache-control", "no-store")
      .send({ error: answer.error, error_description: answer.description });
  };

  // RFC 9728: at the path-inserted URL the 401 names, and at the bare well-known path.
  const resourceMetadata = protectedResourceMetadata(options.publicUrl);
  for (const path of [
    OAUTH_PATHS.protectedResourceMetadata,
    `${OAUTH_PATHS.protectedResourceMetadata}/api/mcp/v1`,
  ]) {
    app.get(
      path,
      {
        schema: doc(
          "RFC 9728 protected resource metadata of the MCP endpoint (resource, authorization server, scopes)",
        ),
      },
      async (_request, reply) => openCors(reply).send(resourceMetadata),
    );
  }
  const serverMetadata = authorizationServerMetadata(options.publicUrl);
  app.get(
    OAUTH_PATHS.authorizationServerMetadata,
    { schema: doc("RFC 8414 authorization server metadata (endpoints, PKCE S256, grant types)") },
    async (_request, reply) => openCors(reply).send(serverMetadata),
  );

  // RFC 7591 dynamic client registration.
  app.post(
    OAUTH_PATHS.register,
    {
      bodyLimit: BODY_LIMIT_BYTES,
      config: { ipRateLimit: "oauth" },
      schema: doc(
        "RFC 7591 dynamic client registration: JSON client metadata (redirect_uris https or loopback http, token_endpoint_auth_method none | client_secret_post | client_secret_basic, grant_types, scope); 201 with client_id (and client_secret for confidential clients); 400 invalid_redirect_uri / invalid_client_metadata; 30 / 60 s per IP",
      ),
    },
    async (request, reply) => {
      const parsed = OAuthClientMetadataSchema.safeParse(request.body ?? {});
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const field = issue?.path.join(".") ?? "";
        return sendError(
          request,
          reply,
          new OAuthRequestError(
            field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
            `${field ? `${field}: ` : ""}${issue?.message ?? "invalid client metadata"}`,
          ),
        );
      }
      const m = parsed.data;
      try {
        const { client, clientSecret } = await tenancy.registerOAuthClient(
          {
            clientName: m.client_name ?? "",
            redirectUris: m.redirect_uris,
            tokenEndpointAuthMethod: m.token_endpoint_auth_method ?? "",
            grantTypes: m.grant_types ?? [],
            responseTypes: m.response_types ?? [],
            ...(m.scope === undefined ? {} : { scope: m.scope }),
            ...(m.client_uri === undefined ? {} : { clientUri: m.client_uri }),
            ...(m.logo_uri === undefined ? {} : { logoUri: m.logo_uri }),
            ...(m.software_id === undefined ? {} : { softwareId: m.software_id }),
            ...(m.software_version === undefined ? {} : { softwareVersion: m.software_version }),
          },
          publicCall(request),
        );
        if (!client) throw new Error("registration answered no client");
        return openCors(reply)
          .code(201)
          .header("cache-control", "no-store")
          .send({
            client_id: client.clientId,
            ...(clientSecret === undefined
              ? {}
              : { client_secret: clientSecret, client_secret_expires_at: 0 }),
            client_id_issued_at: Number(client.issuedAt?.seconds ?? 0n),
            client_name: client.clientName,
            redirect_uris: client.redirectUris,
            token_endpoint_auth_method: client.tokenEndpointAuthMethod,
            grant_types: client.grantTypes,
            response_types: ["code"],
            scope: client.scopes.map((s) => enumWord(ScopeSchema, s)).join(" "),
            ...(client.clientUri === undefined ? {} : { client_uri: client.clientUri }),
            ...(client.logoUri === undefined ? {} : { logo_uri: client.logoUri }),
            ...(client.softwareId === undefined ? {} : { software_id: client.softwareId }),
            ...(client.softwareVersion === undefined ? {} : { software_version: client.softwareVersion }),
          });
      } catch (error) {
        return sendError(request, reply, error);
      }
    },
  );

  const requireForm = (request: FastifyRequest) => {
    const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
    if (type !== FORM) {
      throw new OAuthRequestError("invalid_request", `send the parameters as ${FORM}`);
    }
    return paramsOf(request.body);
  };

  // RFC 6749 3.2 token endpoint: authorization_code (PKCE) and refresh_token (rotated).
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
        const grantType = required(form, "grant_type");
        const resource = single(form, "resource");
        const common = {
          clientId: credentials.clientId,
          ...(credentials.clientSecret === undefined ? {} : { clientSecret: credentials.clientSecret }),
          grantType,
          ...(resource === undefined ? {} : { resource }),
        };
        let request_: Parameters<typeof tenancy.exchangeOAuthGrant>[0];
        if (grantType === "authorization_code") {
          const redirectUri = single(form, "redirect_uri");
          request_ = {
            ...common,
            code: required(form, "code"),
            codeVerifier: required(form, "code_verifier"),
            ...(redirectUri === undefined ? {} : { redirectUri }),
          };
        } else if (grantType === "refresh_token") {
          const scopes = scopeWords(single(form, "scope")) ?? [];
          const unknown = scopes.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
          if (unknown !== undefined) {
            throw new OAuthRequestError("invalid_scope", `unknown scope '${unknown.slice(0, 40)}'`);
          }
          request_ = {
            ...common,
            refreshToken: required(form, "refresh_token"),
            scopes: scopes.map((s) => enumNumber(ScopeSchema, s)),
          };
        } else {
          throw new OAuthRequestError(
            "unsupported_grant_type",
            "grant_type must be authorization_code or refresh_token",
          );
        }
        const issued = await tenancy.exchangeOAuthGrant(request_, publicCall(request));
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
        return sendError(request, reply, error, basic);
      }
    },
  );

  // RFC 7009 revocation: 200 for any token, known or not.
  app.post(
    OAUTH_PATHS.revoke,
    {
      bodyLimit: BODY_LIMIT_BYTES,
      config: { ipRateLimit: "oauthToken" },
      schema: doc(
        "RFC 7009 revocation (form-encoded token + client authentication): ends the whole connection; 200 also for unknown tokens",
      ),
    },
    async (request, reply) => {
      let basic = false;
      try {
        const form = requireForm(request);
        const credentials = clientCredentials(request, form);
        basic = credentials.basic;
        await tenancy.revokeOAuthToken(
          {
            clientId: credentials.clientId,
            ...(credentials.clientSecret === undefined ? {} : { clientSecret: credentials.clientSecret }),
            token: required(form, "token"),
          },
          publicCall(request),
        );
        return openCors(reply).header("cache-control", "no-store").code(200).send();
      } catch (error) {
        return sendError(request, reply, error, basic);
      }
    },
  );

  await registerAuthorizationEndpoint(app, {
    clients: options.clients,
    publicUrl: options.publicUrl,
    coreTimeoutMs,
  });
};
