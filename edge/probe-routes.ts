import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";

/** Liveness only: no database check, no rate limit (spec: GET /health). */
export function registerHealthRoute(app: FastifyInstance): void {
  app.get(
    "/health",
    {
      logLevel: "warn",
      schema: { summary: "Liveness probe", tags: ["status"], security: [], "x-auth": "None" },
    },
    async (_request, reply) => reply.type("text/plain").send("ok"),
  );
}

/**
 * GET /metrics on the public edge, for a Prometheus that scrapes through it: only with the bearer
 * METRICS_TOKEN (compared in constant time); no rate limit, not in the OpenAPI document, not logged.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServiceMetrics, token: string): void {
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
