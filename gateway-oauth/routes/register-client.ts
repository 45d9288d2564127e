import {
  type OAuthClientMetadata,
  OAuthClientMetadataSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FastifyInstance } from "fastify";
import { type OAuthClient, ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumWord } from "../../lib/proto-enum-words.js";
import { type OAuthRouteContext, publicCall } from "../oauth-context.js";
import { OAuthRequestError } from "../oauth-errors.js";
import { doc, OAUTH_PATHS } from "../oauth-metadata.js";
import { BODY_LIMIT_BYTES } from "../oauth-params.js";
import { openCors, sendOAuthError } from "../oauth-replies.js";

/**
 * POST /api/oauth/register: RFC 7591 dynamic client registration, kept for clients of the MCP
 * revisions before client ID metadata documents (MCP authorization 2025-11-25 "Dynamic Client
 * Registration": for backwards compatibility).
 */
export function registerClientRegistration(app: FastifyInstance, context: OAuthRouteContext): void {
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
      try {
        const metadata = parseClientMetadata(request.body);
        const { client, clientSecret } = await context.tenancy.registerOAuthClient(
          registrationRequest(metadata),
          publicCall(context, request),
        );
        if (!client) throw new Error("registration answered no client");
        return openCors(reply)
          .code(201)
          .header("cache-control", "no-store")
          .send(registrationAnswer(client, clientSecret));
      } catch (error) {
        return sendOAuthError(request, reply, error);
      }
    },
  );
}

/** The body as RFC 7591 client metadata; the first problem names its field. */
function parseClientMetadata(body: unknown): OAuthClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = issue?.path.join(".") ?? "";
  throw new OAuthRequestError(
    field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
    `${field ? `${field}: ` : ""}${issue?.message ?? "invalid client metadata"}`,
  );
}

function registrationRequest(m: OAuthClientMetadata) {
  return {
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
  };
}

/** RFC 7591 3.2.1: the registered metadata with client_id (and the secret, shown once). */
function registrationAnswer(client: OAuthClient, clientSecret: string | undefined) {
  return {
    client_id: client.clientId,
    ...(clientSecret === undefined ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 }),
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
  };
}
