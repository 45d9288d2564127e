import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  LinkRequestSchema,
  ListRelationsRequestSchema,
  UnlinkRequestSchema,
} from "../../gen/memory/v1/graph_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/** A relation triple; ids are uuids, relType UPPER_SNAKE_CASE (spec "Relation (edge)"). */
const tripleSchema = z.strictObject({
  fromId: protoString(LinkRequestSchema.field.fromId),
  toId: protoString(LinkRequestSchema.field.toId),
  relType: protoString(LinkRequestSchema.field.relType).describe("UPPER_SNAKE_CASE, e.g. REFERENCES"),
});

const unlinkQuerySchema = z.strictObject({
  fromId: protoString(UnlinkRequestSchema.field.fromId),
  toId: protoString(UnlinkRequestSchema.field.toId),
  relType: protoString(UnlinkRequestSchema.field.relType),
});

const memoryIdParamsSchema = z.strictObject({ id: protoString(ListRelationsRequestSchema.field.memoryId) });

/** Spec "service_list_relations" result in REST camelCase, plus each edge's id. */
export const relationsResponseSchema = z
  .object({
    outgoing: z.array(z.object({ relType: z.string(), to: z.string(), edgeId: z.string() })),
    incoming: z.array(z.object({ relType: z.string(), from: z.string(), edgeId: z.string() })),
  })
  .meta({ id: "Relations" });

/** Spec "Link result"; the inverse edge is materialised automatically. */
export const linkResponseSchema = z
  .object({ edgeId: z.string(), inverseEdgeId: z.string() })
  .meta({ id: "LinkResult" });

export const unlinkResponseSchema = z.object({ deleted: z.boolean() }).meta({ id: "UnlinkResult" });

/**
 * Typed relations between memories (GraphService): list, link, unlink. Bearer surface only
 * (/api/v1), since the spec's unversioned table has no relation routes.
 */
export const relationRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/memory/:id/relations",
    {
      schema: {
        ...describeOperation(options, {
          id: "listRelations",
          summary: "Current relations of one memory",
          tag: "relations",
          rpc: "memory.v1.GraphService/ListRelations",
        }),
        params: memoryIdParamsSchema,
        response: { 200: relationsResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const result = await options.clients.graph.listRelations(
        { memoryId: request.params.id },
        coreCall(request, options),
      );
      return {
        outgoing: result.outgoing.map((r) => ({ relType: r.relType, to: r.to, edgeId: r.edgeId })),
        incoming: result.incoming.map((r) => ({ relType: r.relType, from: r.from, edgeId: r.edgeId })),
      };
    },
  );

  routes.post(
    "/relations",
    {
      schema: {
        ...describeOperation(options, {
          id: "link",
          summary: "Link two memories (the inverse edge is created too)",
          description: "Idempotent for the same triple. 400 when the relation violates a shape constraint.",
          tag: "relations",
          rpc: "memory.v1.GraphService/Link",
        }),
        body: tripleSchema,
        response: { 200: linkResponseSchema, ...errorResponses(options.auth, 404, 415) },
      },
    },
    async (request) => {
      const result = await options.clients.graph.link(request.body, coreCall(request, options));
      return { edgeId: result.edgeId, inverseEdgeId: result.inverseEdgeId };
    },
  );

  routes.delete(
    "/relations",
    {
      schema: {
        ...describeOperation(options, {
          id: "unlink",
          summary: "Remove a relation and its inverse",
          tag: "relations",
          rpc: "memory.v1.GraphService/Unlink",
        }),
        querystring: unlinkQuerySchema,
        response: { 200: unlinkResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const result = await options.clients.graph.unlink(request.query, coreCall(request, options));
      return { deleted: result.deleted };
    },
  );
};
