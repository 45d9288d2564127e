import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/** Spec "Statistics", REST: all integers; plus the quota fields the MCP stats tool carries. */
export const statsResponseSchema = z
  .object({
    memories: z.int(),
    edges: z.int(),
    chunks: z.int(),
    queriesLast24h: z.int(),
    p50Ms: z.int().describe("Recall latency, median over the last 24 h"),
    p99Ms: z.int(),
    memoryLimit: z.int().nullable().describe("The plan's memory limit; null when unlimited"),
    memoriesUsed: z.int().describe("Stored memories counted against the limit"),
    warnAt80: z.boolean().describe("true from 80 % of the limit (spec: soft warning)"),
  })
  .meta({ id: "Statistics" });

/** GET …/stats → RecallService/GetStats. Session under /api (spec table), Bearer under /api/v1. */
export const statsRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/stats",
    {
      schema: {
        ...describeOperation(options, {
          id: "getStats",
          summary: "Counts and recall latency of the workspace",
          tag: "status",
          rpc: "memory.v1.RecallService/GetStats",
        }),
        response: { 200: statsResponseSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const stats = await options.clients.recall.getStats({}, coreCall(request, options));
      return {
        memories: Number(stats.memories),
        edges: Number(stats.edges),
        chunks: Number(stats.chunks),
        queriesLast24h: Number(stats.queriesLast24h),
        p50Ms: Number(stats.p50Ms),
        p99Ms: Number(stats.p99Ms),
        memoryLimit: stats.quota?.memoryLimit === undefined ? null : Number(stats.quota.memoryLimit),
        memoriesUsed: Number(stats.quota?.memoriesUsed ?? 0n),
        warnAt80: stats.quota?.warnAt80 ?? false,
      };
    },
  );
};
