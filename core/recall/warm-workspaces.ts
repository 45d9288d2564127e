import type { Logger } from "../../config/logger.js";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import type { VectorStore } from "../vectors/vector-store.js";
import type { Bm25IndexCache } from "./bm25/bm25-index-cache.js";

/** Warm-up stops once the budget is this full: the rest is for what recalls ask for. */
const FILL_SHARE = 0.8;

/**
 * How many of the hot list's first workspaces are warm before the process takes calls (ADR 0495): the
 * list puts first what a cold recall would pay most for, so these are the large, often-asked ones.
 */
export const WARM_BEFORE_READY = 4;

export interface WarmUp {
  stop(): void;
  /** The whole warm-up has ended (the hot list done, the budget mostly full, or stopped). */
  readonly done: Promise<void>;
  /** The hot list's first WARM_BEFORE_READY workspaces are warm (or the warm-up ended before). */
  readonly first: Promise<void>;
}

/**
 * After a start, loads the workspaces the last run asked for most (its hot list, ADR 0370) — BM25
 * index from its file, vector tables and their ANN indexes — one after the other in the background,
 * so that the first recall of a hot or large workspace does not pay for loading them (issue 46: every
 * workspace at its normal latency within seconds of a restart). Recalls never wait for it; the process
 * waits for `first` before it listens (bounded, ADR 0495); it stops when the budget is mostly full or
 * the process closes.
 */
export function warmWorkspaces(options: {
  readonly bm25Index: Bm25IndexCache;
  readonly vectors: VectorStore;
  readonly budget: MemoryBudget | undefined;
  readonly logger: Logger;
  /** Runs a warmed workspace's recall in process (rehearseRecall), for the first WARM_BEFORE_READY. */
  readonly rehearse?: (tenantId: string) => Promise<void>;
}): WarmUp {
  const { bm25Index, vectors, budget, logger } = options;
  let stopped = false;
  let firstWarm = () => {};
  const first = new Promise<void>((resolve) => {
    firstWarm = resolve;
  });
  const done = (async () => {
    const tenants = await bm25Index.hotList();
    if (tenants.length === 0) return;
    const started = performance.now();
    let warmed = 0;
    for (const [i, tenantId] of tenants.entries()) {
      if (i === WARM_BEFORE_READY) firstWarm();
      if (stopped || (budget && budget.bytes > FILL_SHARE * budget.budgetBytes)) break;
      try {
        // Side by side: decoding the index file is JavaScript, loading the ANN index LanceDB's threads.
        await Promise.all([bm25Index.preload(tenantId), vectors.warm(tenantId)]);
        // The ones the process waits for also run their recall once or twice: the code paths and the
        // database connections a first recall would otherwise warm (ADR 0495).
        if (i < WARM_BEFORE_READY) await options.rehearse?.(tenantId);
        warmed++;
      } catch (error) {
        logger.debug({ err: error, tenantId }, "workspace not warmed");
      }
    }
    logger.info(
      { warmed, listed: tenants.length, ms: Math.round(performance.now() - started) },
      "workspaces warmed from the last run's hot list",
    );
  })()
    .catch((error: unknown) => logger.warn({ err: error }, "workspace warm-up failed"))
    .finally(firstWarm);
  return {
    stop: () => {
      stopped = true;
    },
    done,
    first,
  };
}

/**
 * Waits for the warm-up's first workspaces, at most `limitMs`: a restarted process takes calls once its
 * hottest workspaces answer at their normal latency, or after the limit whatever is still loading
 * (ADR 0495). Answers the milliseconds waited and whether the warm-up was ready by then.
 */
export async function waitForFirstWarm(
  warmUp: WarmUp | undefined,
  limitMs: number,
): Promise<{ ms: number; ready: boolean }> {
  if (warmUp === undefined || limitMs <= 0) return { ms: 0, ready: warmUp === undefined };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    warmUp.first.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), limitMs);
    }),
  ]);
  clearTimeout(timer);
  return { ms: Math.round(performance.now() - started), ready };
}

/**
 * How many of the hot list's first workspaces have their ANN indexes loaded while the process is still
 * starting (models, worker): the ones the process waits for before it listens (a 100k-row index takes
 * ≈ 0.3–0.4 s to load).
 */
export const EARLY_VECTOR_WARMUPS = WARM_BEFORE_READY;

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
