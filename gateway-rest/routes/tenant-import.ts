import { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreStreamCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const responseSchema = z
  .object({
    imported: z.literal(true),
    memories: z.int().describe("Memory versions restored"),
    edges: z.int().describe("Edge rows restored (each direction counts)"),
    chunks: z.int().describe("Chunks cut and embedded with this workspace's embedder"),
    format: z.string().describe('The bundle\'s format, e.g. "memory-service-export/v1"'),
    sourceTenantId: z.string().describe("The exported workspace's id"),
  })
  .meta({ id: "ImportResult" });

/** Bytes sent to core per message (the request body arrives in socket-sized pieces). */
const MESSAGE_BYTES = 64 * 1024;

async function* asMessages(body: Readable): AsyncGenerator<{ chunk: Uint8Array }> {
  let pending: Buffer[] = [];
  let size = 0;
  for await (const piece of body) {
    const bytes = typeof piece === "string" ? Buffer.from(piece) : (piece as Buffer);
    pending.push(bytes);
    size += bytes.length;
    if (size >= MESSAGE_BYTES) {
      yield { chunk: Buffer.concat(pending) };
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield { chunk: Buffer.concat(pending) };
}

/**
 * POST /api/tenant/import → LifecycleService/ImportTenant (session of the owner; docs/export.md
 * "Import"): the body is a bundle from GET /api/tenant/export, passed to core as it arrives — never
 * parsed or buffered here (this plugin's JSON parser hands the raw stream on), so a 1 GB bundle does
 * not sit in the gateway's memory. Core answers 400 for an unknown format or a broken bundle, 409 for
 * a workspace that is not empty, 402 when the bundle exceeds the plan's memory limit.
 */
export const tenantImportRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  // Scoped to this plugin: no other route sees the raw stream.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(["application/json", "application/x-ndjson"], (_request, payload, done) => {
    done(null, payload);
  });
  app.post(
    "/tenant/import",
    {
      schema: {
        ...describeOperation(options, {
          id: "importTenant",
          summary: "Import an export bundle into this (empty) workspace, streamed; all or nothing",
          tag: "exports",
          rpc: "memory.v1.LifecycleService/ImportTenant",
        }),
        consumes: ["application/json"],
        response: {
          200: responseSchema,
          ...errorResponses(options.auth, 402, 409, 415),
        },
      },
    },
    async (request, reply) => {
      // Without a body (or without a Content-Type) no parser ran and there is no stream to pass on.
      if (!(request.body instanceof Readable)) {
        throw new ConnectError(
          "body: an export bundle is required (send GET /api/tenant/export's output as application/json)",
          Code.InvalidArgument,
        );
      }
      const result = await options.clients.lifecycle.importTenant(
        asMessages(request.body),
        coreStreamCall(request, reply, options),
      );
      return reply.send({
        imported: true as const,
        memories: result.memories,
        edges: result.edges,
        chunks: result.chunks,
        format: result.format,
        sourceTenantId: result.sourceTenantId,
      });
    },
  );
};
