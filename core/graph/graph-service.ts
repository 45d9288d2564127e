import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IndexStatus, MemoryKindSchema, MemoryTypeSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumValue } from "../../lib/proto-enum-words.js";
import { tenantCaller } from "../auth/caller.js";
import { type TenantModels, withTenantEmbedder } from "../keys/tenant-models.js";
import { RELATION_TYPES, readQuota } from "../memories/index.js";
import { linkMemories } from "./link-memories.js";
import { listRelations } from "./list-relations.js";
import { listVersions } from "./list-versions.js";
import { readGraphSchema } from "./read-graph-schema.js";
import { unlinkMemories } from "./unlink-memories.js";
import { type UpdateFactDeps, updateFact } from "./update-fact.js";

/** The database for graph reads and writes; vectors and embedder index update_fact's new version. */
export type GraphServiceDeps = UpdateFactDeps & {
  /** The workspace's own embedder (BYOK); unset: the service's for everyone. */
  readonly models?: TenantModels | undefined;
};

/**
 * Knowledge graph and bi-temporal facts (docs/graph.md): thin handlers over one use case each; the
 * tenant always comes from the caller's credentials, never from the request.
 */
export function createGraphService(deps: GraphServiceDeps): ServiceImpl<typeof GraphService> {
  const { db } = deps;
  return {
    async link(req, ctx) {
      const { tenantId } = tenantCaller(ctx);
      const pair = await db.withTenant(tenantId, (tx) =>
        linkMemories(tx, { tenantId, fromId: req.fromId, toId: req.toId, relType: req.relType }),
      );
      return { edgeId: pair.edgeId, inverseEdgeId: pair.inverseEdgeId };
    },

    async unlink(req, ctx) {
      const { tenantId } = tenantCaller(ctx);
      const deleted = await db.withTenant(tenantId, (tx) =>
        unlinkMemories(tx, { tenantId, fromId: req.fromId, toId: req.toId, relType: req.relType }),
      );
      return { deleted };
    },

    async listRelations(req, ctx) {
      const { tenantId } = tenantCaller(ctx);
      return db.withTenant(tenantId, (tx) => listRelations(tx, tenantId, req.memoryId));
    },

    async listVersions(req, ctx) {
      const { tenantId } = tenantCaller(ctx);
      const rows = await db.withTenant(tenantId, (tx) =>
        listVersions(tx, tenantId, req.memoryId, req.includeContent),
      );
      return {
        versions: rows.map((v) => ({
          id: v.id,
          title: v.title,
          validFrom: timestampFromDate(v.validFrom),
          ...(v.validTo !== null ? { validTo: timestampFromDate(v.validTo) } : {}),
          recordedAt: timestampFromDate(v.recordedAt),
          ...(v.supersedesId !== null ? { supersedesId: v.supersedesId } : {}),
          ...(v.updateReason !== null ? { updateReason: v.updateReason } : {}),
          ...(v.content !== undefined ? { content: v.content } : {}),
          kind: enumValue(MemoryKindSchema, v.kind),
          memoryType: enumValue(MemoryTypeSchema, v.memoryType),
        })),
      };
    },

    async updateFact(req, ctx) {
      const { tenantId, limits } = tenantCaller(ctx);
      const tenantDeps = await withTenantEmbedder(deps, tenantId);
      const result = await updateFact(tenantDeps, {
        tenantId,
        targetId: req.targetId,
        newTitle: req.newTitle,
        newContent: req.newContent,
        ...(req.updateReason !== undefined ? { updateReason: req.updateReason } : {}),
      });
      const quota = await db.withTenant(tenantId, (tx) => readQuota(tx, tenantId, limits));
      return {
        oldMemoryId: result.oldMemoryId,
        newMemoryId: result.newMemoryId,
        supersedesEdge: result.supersedesEdge,
        memory: {
          memoryId: result.newMemoryId,
          title: req.newTitle,
          // finishIndexing throws unless the vectors were stored and the version marked indexed.
          status: IndexStatus.INDEXED,
          chunksWritten: result.chunksWritten,
          embeddingProvider: tenantDeps.embedder.id,
          quota,
        },
      };
    },

    async getGraphSchema(_req, ctx) {
      const { tenantId } = tenantCaller(ctx);
      const counts = await db.withTenant(tenantId, (tx) => readGraphSchema(tx, tenantId));
      return {
        nodes: BigInt(counts.nodes),
        edges: BigInt(counts.edges),
        edgeTypes: counts.edgeTypes.map((t) => ({ relType: t.relType, count: BigInt(t.count) })),
        relationTypes: RELATION_TYPES.map((t) => ({
          name: t.name,
          inverse: t.inverse,
          symmetric: t.inverse === t.name,
          sourceKinds: [...t.sourceKinds],
          targetKinds: [...t.targetKinds],
          allowSelfLoop: t.allowSelfLoop,
          description: t.description,
        })),
      };
    },
  };
}
