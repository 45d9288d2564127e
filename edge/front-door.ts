import type { FastifyPluginAsync } from "fastify";

/**
 * `GET /` (issue 49, item 1; ADR 0385): a browser (it asks for HTML) is sent to the dashboard; any
 * other client gets a short JSON map of where things are, instead of a bare 404.
 */
export const frontDoor: FastifyPluginAsync = async (app) => {
  app.get("/", { schema: { hide: true } }, async (request, reply) => {
    const accept = request.headers.accept ?? "";
    if (/\btext\/html\b/.test(accept)) return reply.redirect("/dashboard", 303);
    return reply.send({
      service: "memory-service",
      dashboard: "/dashboard",
      api: "/api/docs",
      openapi: "/api/openapi.json",
      mcp: "/api/mcp/v1",
      health: "/health",
    });
  });
};
