import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const bodySchema = z
  .strictObject({
    confirmSlug: z.string().min(1).max(63).describe("The workspace's slug, typed again"),
  })
  .meta({ id: "EraseWorkspaceRequest" });

const responseSchema = z
  .object({
    erased: z.literal(true),
    tenantId: z.string(),
    rows: z.int().describe("Rows removed, all tables together"),
    vectorTables: z.int().describe("Vector tables dropped (one per embedding space)"),
  })
  .meta({ id: "EraseWorkspaceResult" });

/**
 * POST /api/tenant/erase → LifecycleService/EraseWorkspace (session of the owner; docs/erasure.md):
 * every row, vector table and file of the workspace, its tokens and its members' sessions. The
 * session cookie is cleared: the session is gone with the account (or no longer has a workspace).
 */
export const tenantErasureRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/tenant/erase",
    {
      schema: {
        ...describeOperation(options, {
          id: "eraseWorkspace",
          summary: "Erase the whole workspace (owner only, slug typed again)",
          tag: "exports",
          rpc: "memory.v1.LifecycleService/EraseWorkspace",
        }),
        body: bodySchema,
        response: { 200: responseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request, reply) => {
      const result = await options.clients.lifecycle.eraseWorkspace(
        { confirmSlug: request.body.confirmSlug },
        coreCall(request, options),
      );
      reply.clearCookie(SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "lax" });
      return reply.send({
        erased: true as const,
        tenantId: result.tenantId,
        rows: Number(result.rows),
        vectorTables: result.vectorTables,
      });
    },
  );
};
