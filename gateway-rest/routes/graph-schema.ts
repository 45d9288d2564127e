import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/**
 * Spec "Graph schema result (REST)": nodes, edges, edgeTypes of `{rel_type, count}`. The spec
 * spells `rel_type` in snake_case inside this REST body; it is sent as written, with the camelCase
 * `relType` beside it (docs/rest.md "Naming"). `relationTypes` adds the registry of allowed types.
 */
export const graphSchemaResponseSchema = z
  .object({
    nodes: z.int(),
    edges: z.int(),
    edgeTypes: z.array(
      z.object({
        rel_type: z.string(),
        relType: z.string().describe("Same value as rel_type"),
        count: z.int(),
      }),
    ),
    relationTypes: z.array(
      z.object({
        name: z.string(),
        inverse: z.string(),
        symmetric: z.boolean(),
        sourceKinds: z.array(z.string()).describe("Allowed at the source; empty: any"),
        targetKinds: z.array(z.string()).describe("Allowed at the target; empty: any"),
        allowSelfLoop: z.boolean(),
        description: z.string(),
      }),
    ),
  })
  .meta({ id: "GraphSchema" });

/** GET /api/graph/schema → GraphService/GetGraphSchema (Session). */
export const graphSchemaRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/graph/schema",
    {
      schema: {
        ...describeOperation(options, {
          id: "getGraphSchema",
          summary: "Node and edge counts and the relation-type registry",
          tag: "graph",
          rpc: "memory.v1.GraphService/GetGraphSchema",
        }),
        response: { 200: graphSchemaResponseSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const schema = await options.clients.graph.getGraphSchema({}, coreCall(request, options));
      return {
        nodes: Number(schema.nodes),
        edges: Number(schema.edges),
        edgeTypes: schema.edgeTypes.map((t) => ({
          rel_type: t.relType,
          relType: t.relType,
          count: Number(t.count),
        })),
        relationTypes: schema.relationTypes.map((t) => ({
          name: t.name,
          inverse: t.inverse,
          symmetric: t.symmetric,
          sourceKinds: t.sourceKinds,
          targetKinds: t.targetKinds,
          allowSelfLoop: t.allowSelfLoop,
          description: t.description,
        })),
      };
    },
  );
};
