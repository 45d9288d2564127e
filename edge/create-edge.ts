import { timingSafeEqual } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";
import compress from "@fastify/compress";
import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import { type Context, context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from "fastify";
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";
import { type Logger, markRequestBound } from "../config/logger.js";
import { acceptRequestId, REQUEST_ID_HEADER, runWithRequestId } from "../config/request-context.js";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { mcpGateway } from "../gateway-mcp/mcp-gateway.js";
import { MCP_EXPOSED_HEADERS } from "../gateway-mcp/server-info.js";
import { oauthGateway } from "../gateway-oauth/oauth-gateway.js";
import { toHttpError } from "../gateway-rest/http-errors.js";
import { registerOpenApi } from "../gateway-rest/openapi.js";
import { restGateway } from "../gateway-rest/rest-gateway.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { tracer } from "../lib/tracing/tracer.js";
import { installCsrfGuard } from "./csrf-guard.js";
import { dashboardRoutes } from "./dashboard-routes.js";
import { frontDoor } from "./front-door.js";
import { type IpLimiterSource, installIpRateLimits } from "./ip-rate-limit.js";

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

/** Label of requests that matched no route: never the raw URL (unbounded, may carry secrets). */
const UNMATCHED_ROUTE = "(unmatched)";
/** Query parameters that carry secrets (magic-link tokens) are never logged. */
const SECRET_QUERY = /([?&](?:token|code|key)=)[^&]*/gi;

/**
 * The HTTP edge: one Fastify server hosting the three gateways (REST under /api, MCP at /api/mcp/v1
 * with its protected-resource metadata, the OAuth authorization server under /api/oauth and
 * /.well-known/oauth-authorization-server), the dashboard under /dashboard
 * (edge/dashboard-routes.ts) and the liveness probe /health. Fastify for its schema-driven validation and serialisation (the same
 * zod schemas produce the OpenAPI document), its speed, and its maintained plugins (cookie, CORS,
 * compression, swagger).
 */
export async function createEdge(options: EdgeOptions): Promise<FastifyInstance> {
  // Access-log fields: never headers (credentials), never secret query values.
  const accessLogger: FastifyBaseLogger = options.logger.child(
    {},
    {
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: req.url.replace(SECRET_QUERY, "$1[redacted]"),
          ip: req.ip,
        }),
      },
    },
  );
  const app = Fastify({
    loggerInstance: accessLogger,
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

  // The request id is current for everything a request runs (core calls and their log lines):
  // from the first hook, and again before the handler, since body parsing (stream events) runs
  // outside the async context the first hook entered.
  // The same for the request's trace span (a child of an incoming W3C traceparent); with tracing
  // off the span does not record and the context calls run their callback directly.
  const traceContexts = new WeakMap<object, Context>();
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": request.method, "request.id": request.id },
      },
      parent,
    );
    const traced = trace.setSpan(parent, span);
    traceContexts.set(request, traced);
    context.with(traced, () => runWithRequestId(String(request.id), done));
  });
  app.addHook("preHandler", (request, _reply, done) => {
    context.with(traceContexts.get(request) ?? context.active(), () =>
      runWithRequestId(String(request.id), done),
    );
  });
  app.addHook("onResponse", (request, reply, done) => {
    const span = trace.getSpan(traceContexts.get(request) ?? context.active());
    if (span) {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": reply.statusCode });
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
  const metrics = options.metrics;
  if (metrics) {
    app.addHook("onResponse", (request, reply, done) => {
      metrics.httpRequests.observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? UNMATCHED_ROUTE,
          status: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  // Set before any plugin registers: Fastify copies handlers into child contexts at registration.
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: `no route for ${request.method} ${request.url.split("?")[0]}` }),
  );

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const [first] = error.validation;
      const field =
        first?.instancePath.replace(/^\//, "").replaceAll("/", ".") ||
        String(first?.params?.missingProperty ?? "");
      return reply
        .code(400)
        .send({ error: `${field ? `${field}: ` : ""}${first?.message ?? "invalid request"}` });
    }
    if (error instanceof ConnectError) {
      const mapped = toHttpError(error);
      if (mapped.status >= 500) request.log.error({ err: error }, "core call failed");
      return reply.code(mapped.status).headers(mapped.headers).send(mapped.body);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return reply.code(500).send({ error: "internal error" });
    }
    return reply.code(status).send({ error: error.message });
  });

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

  // Before any route, so the OpenAPI document collects every route.
  await registerOpenApi(app, { version: options.version });

  // Per-IP limits of the routes that ask for one in their config; before any route registers.
  if (options.rateLimiters) installIpRateLimits(app, options.rateLimiters);

  // Liveness only: no database check, no rate limit (spec: GET /health).
  app.get(
    "/health",
    {
      logLevel: "warn",
      schema: { summary: "Liveness probe", tags: ["status"], security: [], "x-auth": "None" },
    },
    async (_request, reply) => reply.type("text/plain").send("ok"),
  );

  if (metrics && options.metricsToken) registerMetricsRoute(app, metrics, options.metricsToken);

  const publicUrl = options.publicUrl ?? "http://localhost";
  // Before the routes: every cookie-authenticated write from a browser is checked (edge/csrf-guard.ts).
  installCsrfGuard(app, publicUrl, options.corsOrigins);
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
  await app.register(dashboardRoutes);
  await app.register(frontDoor);

  return app;
}

/**
 * GET /metrics on the public edge, for a Prometheus that scrapes through it: only with the bearer
 * METRICS_TOKEN (compared in constant time); no rate limit, not in the OpenAPI document, not logged.
 */
function registerMetricsRoute(app: FastifyInstance, metrics: ServiceMetrics, token: string): void {
  const expected = Buffer.from(`Bearer ${token}`);
  app.get("/metrics", { logLevel: "warn", schema: { hide: true } }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="metrics"')
        .send({ error: "metrics need Authorization: Bearer <METRICS_TOKEN>" });
    }
    return reply.type(metrics.contentType).send(await metrics.scrape());
  });
}
