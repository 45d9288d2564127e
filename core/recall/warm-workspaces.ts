import type { Logger } from "../../config/logger.js";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import type { VectorStore } from "../vectors/vector-store.js";
import type { Bm25IndexCache } from "./bm25/bm25-index-cache.js";

/** Warm-up stops once the budget is this full: the rest is for what recalls ask for. */
const FILL_SHARE = 0.8;

/**
 * After a start, loads the workspaces the last run asked for most (its hot list, ADR 0370) — BM25
 * index from its file, vector tables and their ANN indexes — one after the other in the background,
 * so that the first recall of a hot or large workspace does not pay for loading them (issue 46: every
 * workspace at its normal latency within seconds of a restart). Recalls never wait for it; it stops
 * when the budget is mostly full or the process closes.
 */
export function warmWorkspaces(options: {
  readonly bm25Index: Bm25IndexCache;
  readonly vectors: VectorStore;
  readonly budget: MemoryBudget | undefined;
  readonly logger: Logger;
}): { stop(): void; done: Promise<void> } {
  const { bm25Index, vectors, budget, logger } = options;
  let stopped = false;
  const done = (async () => {
    const tenants = await bm25Index.hotList();
    if (tenants.length === 0) return;
    const started = performance.now();
    let warmed = 0;
    for (const tenantId of tenants) {
      if (stopped || (budget && budget.bytes > FILL_SHARE * budget.budgetBytes)) break;
      try {
        // Side by side: decoding the index file is JavaScript, loading the ANN index LanceDB's threads.
        await Promise.all([bm25Index.preload(tenantId), vectors.warm(tenantId)]);
        warmed++;
      } catch (error) {
        logger.debug({ err: error, tenantId }, "workspace not warmed");
      }
    }
    logger.info(
      { warmed, listed: tenants.length, ms: Math.round(performance.now() - started) },
      "workspaces warmed from the last run's hot list",
    );
  })().catch((error: unknown) => logger.warn({ err: error }, "workspace warm-up failed"));
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

/**
 * How many of the hot list's first workspaces have their ANN indexes loaded while the process is still
 * starting (models, worker): the list puts first what a cold recall would pay most for, so these are
 * the large, often-asked ones (a 100k-row index takes ≈ 0.3–0.4 s to load).
 */
export const EARLY_VECTOR_WARMUPS = 4;

/**
 * Starts loading the ANN indexes of the hot list's first workspaces as soon as storage is open, before
 * the models load and the process listens: a restart's first recalls of the largest workspaces then
 * find their index in memory (issue 46: 100k chunks answered in ≈ 0.55 s when the first recall came
 * right after the start, racing warmWorkspaces). warmWorkspaces later finds these loaded or joins the
 * load under way (the vector store's warm() loads each table once).
 */
export function warmHotVectorsEarly(options: {
  readonly vectors: VectorStore;
  readonly hotList: () => Promise<readonly string[]>;
  readonly logger: Logger;
  readonly count?: number;
}): { stop(): void; done: Promise<void> } {
  let stopped = false;
  const done = (async () => {
    const tenants = (await options.hotList()).slice(0, options.count ?? EARLY_VECTOR_WARMUPS);
    for (const tenantId of tenants) {
      if (stopped) break;
      await options.vectors
        .warm(tenantId)
        .catch((error: unknown) => options.logger.debug({ err: error, tenantId }, "vector index not warmed"));
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}
