import type { TenantModels } from "../keys/tenant-models.js";
import { type Bm25IndexCache, createBm25IndexCache } from "../recall/bm25/bm25-index-cache.js";
import { DEFAULT_PRF } from "../recall/prf/feedback-pass.js";
import { createRecallLogWriter, type RecallLogWriter } from "../recall/recall-log-writer.js";
import { createRecallService } from "../recall/recall-service.js";
import { rehearseRecall } from "../recall/rehearse-recall.js";
import { type WarmUp, warmWorkspaces } from "../recall/warm-workspaces.js";
import type { CoreOptions } from "./core-options.js";

export interface RecallParts {
  /** The process's one BM25 index cache (undefined with BM25_INDEX=sql). */
  readonly bm25Index: Bm25IndexCache | undefined;
  readonly recallLog: RecallLogWriter;
  readonly recall: ReturnType<typeof createRecallService>;
  /** The warm-up of the last run's hot list (undefined with BM25_INDEX=sql). */
  readonly warmUp: WarmUp | undefined;
}

/** RecallService with its BM25 indexes, its latency log and the warm-up of the hottest workspaces. */
export function createRecallParts(options: CoreOptions, models: TenantModels): RecallParts {
  const { db, vectors } = options;
  const bm25Index =
    options.bm25Index?.mode === "sql"
      ? undefined
      : createBm25IndexCache({
          db,
          logger: options.logger,
          budget: options.workspaceState,
          segmentDirectory: options.bm25Index?.segmentDirectory,
        });
  const recallLog = createRecallLogWriter({ db, logger: options.logger });
  // What a recall reads, shared by the service and the warm-up's rehearsals.
  const recallDeps = {
    bm25Index,
    db,
    vectors,
    embedder: options.embedder,
    reranker: options.reranker,
    lexicon: options.lexicon,
    thesaurus: options.thesaurus,
    logger: options.logger,
    models,
    ...(options.recallPrf ? { tuning: { prf: { ...DEFAULT_PRF, enabled: true } } } : {}),
    ...(options.recallTimeZone !== undefined ? { timeZone: options.recallTimeZone } : {}),
  };
  const recall = createRecallService({ recallLog, ...recallDeps });
  const warmUp = bm25Index
    ? warmWorkspaces({
        bm25Index,
        vectors,
        budget: options.workspaceState,
        logger: options.logger,
        rehearse: (tenantId) => rehearseRecall({ ...recallDeps, bm25Index }, tenantId),
      })
    : undefined;
  return { bm25Index, recallLog, recall, warmUp };
}
