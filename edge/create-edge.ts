import compress from "@fastify/compress";
import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { type Logger, markRequestBound } from "../config/logger.js";
import { acceptRequestId, REQUEST_ID_HEADER } from "../config/request-context.js";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { mcpGateway } from "../gateway-mcp/mcp-gateway.js";
import { MCP_EXPOSED_HEADERS } from "../gateway-mcp/server-info.js";
import { oauthGateway } from "../gateway-oauth/oauth-gateway.js";
import { registerOpenApi } from "../gateway-rest/openapi.js";
import { restGateway } from "../gateway-rest/rest-gateway.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { accessLoggerOf } from "./access-logger.js";
import { installCsrfGuard } from "./csrf-guard.js";
import { dashboardRoutes } from "./dashboard-routes.js";
import { installEdgeErrors } from "./edge-errors.js";
import { frontDoor } from "./front-door.js";
import { type IpLimiterSource, installIpRateLimits } from "./ip-rate-limit.js";
import { registerHealthRoute, registerMetricsRoute } from "./probe-routes.js";
import { installHttpMetrics, installRequestContext } from "./request-context-hooks.js";

export interface EdgeOptions {
  readonly clients: CoreClients;
  readonly logger: Logger;
  readonly version: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you control). */
  readonly trustProxy: boolean;
  /** Origins allowed by CORS; empty: CORS off. */
  readonly corsOrigins: readonly string[];
  /**
   * PUBLIC_URL: where sign-in redirects point; https makes the session cookie Secure. Every
   * composition root passes it; the default serves edges built alone in tests.
   */
  readonly publicUrl?: string;
  /**
   * The rate-limit store (Redis or memory) for the per-IP route limits (edge/ip-rate-limit.ts).
   * Every composition root passes it; without it (edges built alone in tests) there are none.
   */
  readonly rateLimiters?: IpLimiterSource;
  /** Deadline of one core call from the REST gateway (504 after it); default 30 s. */
  readonly coreTimeoutMs?: number;
  /** The process's Prometheus metrics: HTTP requests and MCP tool calls are recorded into them. */
  readonly metrics?: ServiceMetrics | undefined;
  /**
   * METRICS_TOKEN: GET /metrics on this edge answers only `Authorization: Bearer <token>`; unset:
   * the edge has no /metrics (404) and metrics are read on METRICS_PORT (ADR 0150).
   */
  readonly metricsToken?: string | undefined;
}

/**
 * The HTTP edge: one Fastify server hosting the three gateways (REST under /api, MCP at /api/mcp/v1
 * with its protected-resource metadata, the OAuth authorization server under /api/oauth and
 * /.well-known/oauth-authorization-server), the dashboard under /dashboard
 * (edge/dashboard-routes.ts) and the liveness probe /health. Fastify for its schema-driven validation and serialisation (the same
 * zod schemas produce the OpenAPI document), its speed, and its maintained plugins (cookie, CORS,
 * compression, swagger).
 */
export async function createEdge(options: EdgeOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: accessLoggerOf(options.logger),
    trustProxy: options.trustProxy,
    bodyLimit: 1024 * 1024,
    requestIdHeader: false,
    // A client's X-Request-Id is kept when sane (plain characters, at most 128), else replaced.
    genReqId: (req) => acceptRequestId(req.headers[REQUEST_ID_HEADER]),
    // Per-request loggers carry reqId as a binding; marked so the logger's mixin does not repeat it.
    childLoggerFactory: (logger, bindings, childOptions) =>
      markRequestBound(logger.child(bindings, childOptions) as Logger),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installRequestContext(app);
  const metrics = options.metrics;
  if (metrics) installHttpMetrics(app, metrics);
  installEdgeErrors(app);
  await registerHttpPlugins(app, options);

  // Before any route, so the OpenAPI document collects every route.
  await registerOpenApi(app, { version: options.version });
  // Per-IP limits of the routes that ask for one in their config; before any route registers.
  if (options.rateLimiters) installIpRateLimits(app, options.rateLimiters);
  registerHealthRoute(app);
  if (metrics && options.metricsToken) registerMetricsRoute(app, metrics, options.metricsToken);

  const publicUrl = options.publicUrl ?? "http://localhost";
  // Before the routes: every cookie-authenticated write from a browser is checked (edge/csrf-guard.ts).
  installCsrfGuard(app, publicUrl, options.corsOrigins);
  await registerGateways(app, options, publicUrl);
  await app.register(dashboardRoutes);
  await app.register(frontDoor);
  return app;
}

/** Cookies, CORS (when origins are configured) and compression. */
async function registerHttpPlugins(app: FastifyInstance, options: EdgeOptions): Promise<void> {
  await app.register(cookie);
  if (options.corsOrigins.length > 0) {
    // Request headers are reflected from the preflight (Authorization, MCP-Protocol-Version,
    // Mcp-Session-Id, …); the MCP response headers a page needs are exposed.
    await app.register(cors, {
      origin: [...options.corsOrigins],
      credentials: true,
      exposedHeaders: [...MCP_EXPOSED_HEADERS],
    });
  }
  await app.register(compress, { threshold: 1024, global: true });
}

/** The three gateways: REST, MCP and the OAuth authorization server. */
async function registerGateways(
  app: FastifyInstance,
  options: EdgeOptions,
  publicUrl: string,
): Promise<void> {
  const { metrics } = options;
  await app.register(restGateway, {
    clients: options.clients,
    publicUrl,
    ...(options.coreTimeoutMs === undefined ? {} : { coreTimeoutMs: options.coreTimeoutMs }),
  });
  await app.register(mcpGateway, {
    clients: options.clients,
    version: options.version,
    publicUrl,
    corsOrigins: options.corsOrigins,
    ...(metrics ? { metrics } : {}),
  });
  await app.register(oauthGateway, {
    clients: options.clients,
    publicUrl,
    ...(options.coreTimeoutMs === undefined ? {} : { coreTimeoutMs: options.coreTimeoutMs }),
  });
}
