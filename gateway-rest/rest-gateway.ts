import type { FastifyPluginAsync } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import type { RouteAuth } from "../gateway-kit/credentials.js";
import { toRequestError } from "./http-errors.js";
import { type RestRouteOptions, type RestSurface, requireCredentialKind } from "./route-options.js";
import { authRoutes } from "./routes/auth.js";
import { billingRoutes } from "./routes/billing.js";
import { cancellationRoutes } from "./routes/cancellation.js";
import { conversationRoutes } from "./routes/conversations.js";
import { documentFetchRoutes } from "./routes/document-fetch.js";
import { documentUploadRoutes } from "./routes/document-upload.js";
import { documentRoutes } from "./routes/documents.js";
import { exportRoutes } from "./routes/exports.js";
import { factVersionRoutes } from "./routes/fact-versions.js";
import { graphSchemaRoutes } from "./routes/graph-schema.js";
import { healthRoutes } from "./routes/health.js";
import { keyRoutes } from "./routes/keys.js";
import { memoryEntryRoutes } from "./routes/memory-entries.js";
import { memoryErasureRoutes } from "./routes/memory-erasure.js";
import { onboardingRoutes } from "./routes/onboarding.js";
import { paymentWebhookRoutes } from "./routes/payment-webhook.js";
import { recallRoutes } from "./routes/recall.js";
import { recentRoutes } from "./routes/recent.js";
import { relationRoutes } from "./routes/relations.js";
import { statsRoutes } from "./routes/stats.js";
import { tenantErasureRoutes } from "./routes/tenant-erasure.js";
import { tenantImportRoutes } from "./routes/tenant-import.js";
import { tokenRoutes } from "./routes/tokens.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { withRetryKey } from "./write-retry-key.js";

export interface RestGatewayOptions {
  clients: CoreClients;
  /** Deadline of one core call; longer calls answer 504. Default 30 s. */
  coreTimeoutMs?: number;
  /** PUBLIC_URL: sign-in links, redirects and the session cookie's Secure flag (routes/auth.ts). */
  publicUrl: string;
}

type RoutePlugin = FastifyPluginAsync<RestRouteOptions>;

/** A route plugin whose requests are checked for the right kind of credential before the body. */
function credentialsFirst(routes: RoutePlugin): RoutePlugin {
  return async (scope, options) => {
    scope.addHook("preValidation", requireCredentialKind(options.auth));
    await scope.register(routes, options);
  };
}

/**
 * Unversioned paths exactly as the spec's endpoint table lists them, each with its Auth column.
 * (Tokens, onboarding and sign-in routes are registered by their own plugins below.)
 */
const UNVERSIONED: readonly (readonly [RoutePlugin, RouteAuth])[] = [
  [healthRoutes, "bearer"],
  [recallRoutes, "both"],
  [documentRoutes, "both"],
  // File uploads: integrations under /api/v1, the dashboard's explorer (session + CSRF) here.
  [documentUploadRoutes, "both"],
  [graphSchemaRoutes, "session"],
  [statsRoutes, "session"],
  [tokenRoutes, "session"],
  [onboardingRoutes, "session"],
  [keyRoutes, "session"],
  [exportRoutes, "session"],
  [tenantImportRoutes, "session"],
  [tenantErasureRoutes, "session"],
  // The dashboard's erasure of one memory (ADR 0452); tokens use /api/v1/memories/{id}.
  [memoryErasureRoutes, "session"],
  [billingRoutes, "session"],
  [paymentWebhookRoutes, "none"],
  [cancellationRoutes, "none"],
  // Dashboard management (session) and automation with an admin-scope token.
  [webhookRoutes, "both"],
  // The dashboard's memory explorer (session) reads these like integrations do under /api/v1.
  [recentRoutes, "both"],
  [relationRoutes, "both"],
  [factVersionRoutes, "both"],
];

/**
 * /api/v1: the bearer-token surface for classic integrations (spec: "any /api/v1/... Bearer").
 * Aliases of the unversioned bearer routes plus the write and graph operations integrations need.
 * Paths under /api/v1 never change meaning; a breaking change goes to /api/v2 (docs/rest.md).
 */
const V1: readonly RoutePlugin[] = [
  healthRoutes,
  recallRoutes,
  documentRoutes,
  documentUploadRoutes,
  memoryEntryRoutes,
  conversationRoutes,
  documentFetchRoutes,
  recentRoutes,
  keyRoutes,
  relationRoutes,
  factVersionRoutes,
  memoryErasureRoutes,
  statsRoutes,
];

/** camelCase REST under /api: translation only; every rule lives in core. */
export const restGateway: FastifyPluginAsync<RestGatewayOptions> = async (app, options) => {
  const { clients, publicUrl } = options;
  const coreTimeoutMs = options.coreTimeoutMs ?? 30_000;

  // REST bodies are JSON (spec "Naming convention"); Fastify's default text/plain parser would let
  // a wrong content type through to schema validation instead of answering 415.
  app.removeContentTypeParser("text/plain");

  // Many HTTP clients send Content-Type: application/json on every request; a DELETE (whose
  // parameters are in the query) with that header and no body is not an error. Everything else
  // keeps Fastify's own JSON parser, with its prototype-poisoning protection and error codes.
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (request.method === "DELETE" && text === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });

  // One answer for every failure of a REST route (gateway-rest/http-errors.ts).
  app.setErrorHandler(async (error, request, reply) => {
    const mapped = withRetryKey(
      toRequestError(error, {
        validationStatus: request.routeOptions.config.validationStatus ?? 400,
        operation: `${request.method} ${request.routeOptions.url ?? request.url}`,
      }),
      request,
    );
    if (mapped.status >= 500 && mapped.status !== 501) request.log.error({ err: error }, "request failed");
    return reply.code(mapped.status).headers(mapped.headers).send(mapped.body);
  });

  await app.register(
    async (api) => {
      for (const [routes, auth] of UNVERSIONED) {
        await api.register(credentialsFirst(routes), {
          clients,
          auth,
          surface: "unversioned",
          coreTimeoutMs,
          publicUrl,
        });
      }
      // Sign-in, callback, sign-out, session: each route states its own Auth column.
      await api.register(authRoutes, {
        clients,
        auth: "none",
        surface: "unversioned",
        coreTimeoutMs,
        publicUrl,
      });
    },
    { prefix: "/api" },
  );
  await app.register(
    async (v1) => {
      const surface: RestSurface = "v1";
      for (const routes of V1) {
        await v1.register(credentialsFirst(routes), {
          clients,
          auth: "bearer",
          surface,
          coreTimeoutMs,
          publicUrl,
        });
      }
    },
    { prefix: "/api/v1" },
  );
};
