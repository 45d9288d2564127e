import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  QueryTimeSchema,
  RecallExplanationSchema,
  RecallHitSchema,
  type RecallRequest,
  type RecallResponse,
  RecallResponseSchema,
  type RecallService,
  RecentItemSchema,
  StageTimingSchema,
} from "../../gen/memory/v1/recall_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { invalidArgument } from "../errors.js";
import type { TenantModels } from "../keys/tenant-models.js";
import { readQuota } from "../memories/index.js";
import { recallFilterOf } from "./filter/recall-filter.js";
import { listRecent } from "./list-recent.js";
import { readRecallStats } from "./read-recall-stats.js";
import { createRecallLogWriter, type RecallLogWriter } from "./recall-log-writer.js";
import { DEFAULT_HOPS, DEFAULT_K, type RecallOptions } from "./recall-options.js";
import { indexStatusEnum, memoryKindEnum, memoryTypeEnum } from "./recall-proto-enums.js";
import { type RecallDeps, type RecallOutcome, runRecall } from "./run-recall.js";

export type RecallServiceDeps = RecallDeps & {
  /** The workspace's own embedder / reranker (BYOK); unset: the service's for everyone. */
  readonly models?: TenantModels | undefined;
  /** Where recall latencies go (create-core owns it, to flush it on shutdown); unset: a new one. */
  readonly recallLog?: RecallLogWriter;
};

const DEFAULT_RECENT = 10;

/** RecallRequest → options; bounds were enforced by protovalidate, the timestamp is checked here. */
export function recallOptionsOf(request: RecallRequest): RecallOptions {
  let asOf: Date | undefined;
  if (request.asOf !== undefined) {
    asOf = timestampDate(request.asOf);
    if (!Number.isFinite(asOf.getTime()))
      throw invalidArgument("as_of", "as_of is not a valid point in time");
  }
  const stages = request.stages;
  const filter = recallFilterOf(request.filter);
  return {
    query: request.query,
    k: request.k ?? DEFAULT_K,
    hops: request.hops ?? DEFAULT_HOPS,
    ...(asOf !== undefined ? { asOf } : {}),
    stages: {
      fulltext: !stages?.disableFulltext,
      vector: !stages?.disableVector,
      graph: !stages?.disableGraph,
      rerank: !stages?.disableRerank,
    },
    ...(request.explain ? { explain: true } : {}),
    ...(filter !== undefined ? { filter } : {}),
  };
}

export function recallResponseOf(outcome: RecallOutcome): RecallResponse {
  return create(RecallResponseSchema, {
    hits: outcome.hits.map((h) =>
      create(RecallHitSchema, {
        memoryId: h.memoryId,
        title: h.title,
        snippet: h.snippet,
        content: h.content,
        score: h.score,
        source: h.source,
        hops: h.hops,
        validFrom: timestampFromDate(h.validFrom),
        ...(h.validTo !== null ? { validTo: timestampFromDate(h.validTo) } : {}),
        memoryType: memoryTypeEnum(h.memoryType),
        kind: memoryKindEnum(h.kind),
        origin: h.origin,
        ...(h.page === undefined ? {} : { page: h.page }),
        ...(h.pageEnd === undefined ? {} : { pageEnd: h.pageEnd }),
        ...(h.explanation !== undefined
          ? {
              explanation: create(RecallExplanationSchema, {
                ...h.explanation,
                matchedTerms: [...h.explanation.matchedTerms],
                graphPath: [...h.explanation.graphPath],
                queryTime:
                  h.explanation.queryTime === undefined
                    ? undefined
                    : create(QueryTimeSchema, {
                        text: h.explanation.queryTime.text,
                        from: timestampFromDate(h.explanation.queryTime.from),
                        to: timestampFromDate(h.explanation.queryTime.to),
                      }),
              }),
            }
          : {}),
      }),
    ),
    latencyMs: Math.round(outcome.latencyMs),
    reranker: outcome.reranker,
    timings: outcome.timings.map((t) => create(StageTimingSchema, { stage: t.stage, ms: t.ms })),
  });
}

/**
 * RecallService (issue #6, docs/recall.md): the tenant comes from the credentials, never the request.
 * Every recall's latency goes to recall_log for the stats' p50/p99 (in batches, recall-log-writer.ts).
 */
export function createRecallService(options: RecallServiceDeps): ServiceImpl<typeof RecallService> {
  const { db } = options;
  const deps: RecallDeps = options;
  const recallLog = options.recallLog ?? createRecallLogWriter({ db, logger: options.logger });
  return {
    async recall(request, ctx) {
      const { tenantId } = tenantCaller(ctx);
      let tenantDeps: RecallDeps = deps;
      if (options.models) {
        const { embedder, reranker, byok } = await options.models.modelsFor(tenantId);
        tenantDeps = { ...deps, embedder, reranker, strictProviders: byok };
      }
      const outcome = await runRecall(tenantDeps, tenantId, recallOptionsOf(request));
      // The statistic must not cost the caller the answer it already has: written in batches.
      recallLog.record(tenantId, outcome.latencyMs);
      return recallResponseOf(outcome);
    },

    async listRecent(request, ctx) {
      const { tenantId } = tenantCaller(ctx);
      const items = await db.withTenant(tenantId, (tx) =>
        listRecent(tx, tenantId, request.k ?? DEFAULT_RECENT),
      );
      return {
        items: items.map((m) =>
          create(RecentItemSchema, {
            id: m.id,
            title: m.title,
            status: indexStatusEnum(m.status),
            indexedChunks: m.indexedChunks,
            createdAt: timestampFromDate(m.createdAt),
            updatedAt: timestampFromDate(m.updatedAt),
            kind: memoryKindEnum(m.kind),
          }),
        ),
        count: items.length,
      };
    },

    async getStats(_request, ctx) {
      const { tenantId, limits } = tenantCaller(ctx);
      await recallLog.flush(tenantId);
      const [stats, quota] = await db.withTenant(tenantId, (tx) =>
        Promise.all([readRecallStats(tx, tenantId), readQuota(tx, tenantId, limits)]),
      );
      return {
        memories: BigInt(stats.memories),
        edges: BigInt(stats.edges),
        chunks: BigInt(stats.chunks),
        queriesLast24h: BigInt(stats.queriesLast24h),
        p50Ms: BigInt(stats.p50Ms),
        p99Ms: BigInt(stats.p99Ms),
        quota,
      };
    },
  };
}
