import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { CoreClients } from "../../edge/core-clients.js";
import { forwardedHeaders } from "../../edge/credentials.js";

const componentSchema = z.object({
  name: z.string(),
  status: z.enum(["ok", "degraded", "down"]),
  detail: z.string(),
  latencyMs: z.number(),
});

export const healthResponseSchema = z.object({
  status: z.enum(["ok", "degraded", "down"]),
  service: z.string(),
  version: z.string(),
  embeddingProvider: z.string(),
  reranker: z.string(),
  components: z.array(componentSchema),
});

/**
 * GET /api/health (Bearer): status of database, vector store, worker and models; 503 when a
 * required dependency is down. The public liveness probe is GET /health at the edge.
 */
export const healthRoutes: FastifyPluginAsync<{ clients: CoreClients }> = async (app, { clients }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/health",
    {
      schema: {
        summary: "Service status",
        tags: ["status"],
        security: [{ bearer: [] }],
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (request, reply) => {
      const status = await clients.status.getStatus({}, { headers: forwardedHeaders(request, "bearer") });
      const body = {
        status: status.status as "ok" | "degraded" | "down",
        service: status.service,
        version: status.version,
        embeddingProvider: status.embeddingProvider,
        reranker: status.reranker,
        components: status.components.map((c) => ({
          name: c.name,
          status: c.status as "ok" | "degraded" | "down",
          detail: c.detail,
          latencyMs: c.latencyMs,
        })),
      };
      return reply.code(status.status === "down" ? 503 : 200).send(body);
    },
  );
};
