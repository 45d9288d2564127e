import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { streamedBody } from "../core-stream.js";
import { errorResponses } from "../error-schemas.js";
import { coreStreamCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/**
 * Exports streamed from core (TenancyService server streams): the audit log as CSV (spec: pro and
 * higher, 402 otherwise) and the GDPR bundle of the whole tenant as JSON. Session only. The
 * bundle's structure is core's (spec: "bundle structure not shown"); the gateway passes the bytes.
 */
export const exportRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  // Without the zod type provider: the 200 body is a byte stream, not a typed value (the schemas
  // below still document it and validate the error bodies).
  const routes = app;
  const { tenancy } = options.clients;

  routes.get(
    "/audit/export",
    {
      schema: {
        ...describeOperation(options, {
          id: "exportAudit",
          summary: "Audit log as CSV (pro plan and higher)",
          tag: "exports",
          rpc: "memory.v1.TenancyService/ExportAudit",
        }),
        produces: ["text/csv"],
        response: {
          200: {
            description: "CSV stream, header line first",
            content: { "text/csv": { schema: z.string() } },
          },
          ...errorResponses(options.auth, 402),
        },
      },
    },
    async (request, reply) => {
      const body = await streamedBody(tenancy.exportAudit({}, coreStreamCall(request, reply, options)));
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="audit-log.csv"')
        .send(body);
    },
  );

  routes.get(
    "/tenant/export",
    {
      schema: {
        ...describeOperation(options, {
          id: "exportTenant",
          summary: "GDPR export: all memories (every version), edges and audit entries as one JSON bundle",
          tag: "exports",
          rpc: "memory.v1.TenancyService/ExportTenant",
        }),
        response: {
          200: {
            description: "JSON bundle, streamed",
            content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
          },
          ...errorResponses(options.auth),
        },
      },
    },
    async (request, reply) => {
      const body = await streamedBody(tenancy.exportTenant({}, coreStreamCall(request, reply, options)));
      return reply
        .type("application/json; charset=utf-8")
        .header("content-disposition", 'attachment; filename="tenant-export.json"')
        .send(body);
    },
  );
};
