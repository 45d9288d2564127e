import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorBodySchema } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

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
export const healthRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/health",
    {
      schema: {
        ...describeOperation(options, {
          id: "getHealth",
          summary: "Service status: database, vector store, worker and models",
          tag: "status",
          rpc: "memory.v1.StatusService/GetStatus",
        }),
        response: {
          200: healthResponseSchema,
          401: errorBodySchema,
          403: errorBodySchema,
          429: errorBodySchema,
          500: errorBodySchema,
          503: z.union([healthResponseSchema, errorBodySchema]),
          504: errorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const status = await options.clients.status.getStatus({}, coreCall(request, options));
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
