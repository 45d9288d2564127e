import type { Logger } from "../../../config/logger.js";
import { MemoryBudget } from "../../../lib/memory-budget/memory-budget.js";
import type { Database, TransactionSql } from "../../store/database.js";
import { withTenantSnapshot } from "../../store/with-tenant-snapshot.js";
import { type Bm25IndexEntry, withEntryLock } from "./bm25-index-entry.js";
import { type Bm25IndexView, type ViewCounters, viewOfBm25Index } from "./bm25-index-view.js";
import { encodeSegment } from "./bm25-segment-file.js";
import { Bm25SegmentFiles } from "./bm25-segment-files.js";
import { buildBm25Index } from "./build-bm25-index.js";
import { catchUpBm25Index } from "./catch-up-bm25-index.js";
import { HeldBm25Indexes } from "./held-bm25-indexes.js";
import { readHotList, writeHotList } from "./hot-list.js";
import { type FeedRead, type FeedSnapshot, readChunkFeed } from "./read-chunk-feed.js";
import type { TenantBm25Index } from "./tenant-bm25-index.js";

/** Default byte budget of all cached tenant indexes of one process (BM25_INDEX_BUDGET_MB). */
export const DEFAULT_BM25_INDEX_BUDGET_BYTES = 256 * 1024 * 1024;
/** Tenants up to this many chunks are indexed inside the first recall (≈ 0.1 s); larger ones in the background. */
export const INLINE_BUILD_MAX_CHUNKS = 2_000;
/** How often cached indexes catch up on their own, so erased chunks leave memory without a recall. */
const DEFAULT_SWEEP_MS = 30_000;
/** A background build the budget refused (others were wanted more) is not repeated for this long. */
const REFUSED_RETRY_MS = 60_000;
/** A tenant too large for the budget is not built again for this long. */
const TOO_LARGE_RETRY_MS = 10 * 60_000;
/** How many of the most asked-for tenants the hot list names (warmed after a restart). */
const HOT_LIST_LENGTH = 1_000;
/** A changed index is written to its segment at most this often (the sweep looks). */
const PERSIST_EVERY_MS = 5 * 60_000;

export interface Bm25IndexCacheOptions {
  readonly db: Database;
  readonly logger: Logger;
  /**
   * The process's one budget for per-workspace state (issue 46), shared with the vector tables; a
   * budget of its own of `budgetBytes` when not given (tests).
   */
  readonly budget?: MemoryBudget | undefined;
  readonly budgetBytes?: number | undefined;
  readonly inlineBuildMax?: number;
  /** 0: no periodic catch-up. */
  readonly sweepMs?: number;
  /**
   * Where each tenant's index is kept on disk (ADR 0370: `DATA_DIR/bm25`), loaded when the tenant is
   * cold and caught up from the feed; unset: indexes live in memory only.
   */
  readonly segmentDirectory?: string | undefined;
}

export interface Bm25IndexStats {
  readonly tenants: number;
  readonly bytes: number;
  /** Recalls answered from the index / sent to SQL (cold, building, index ahead of the snapshot). */
  readonly served: number;
  /** Indexes loaded from their segment files. */
  readonly loaded?: number;
  readonly fellBack: number;
  readonly builds: number;
}

/** What the cache's steps share. */
interface CacheState {
  readonly db: Database;
  readonly logger: Logger;
  readonly held: HeldBm25Indexes;
  /** Unset: indexes live in memory only. */
  readonly files: Bm25SegmentFiles | undefined;
  readonly inlineBuildMax: number;
  readonly counters: ViewCounters & { builds: number };
  readonly building: Map<string, Promise<void>>;
  /** Tenants whose background build the budget refused, with when. */
  readonly refused: Map<string, number>;
  /** One background build at a time per process. */
  buildQueue: Promise<unknown>;
}

/**
 * The process's derived BM25 indexes (ADR 0230): one per tenant the workspace state budget admits
 * (frequency-aware, issue 46: lib/memory-budget). PostgreSQL stays the source of truth: an index is
 * built from the chunks' tsvectors and kept current from the change feed inside each recall's
 * snapshot; whatever cannot be proven current for that snapshot is answered by the SQL design.
 */
export function createBm25IndexCache(options: Bm25IndexCacheOptions) {
  const budget =
    options.budget ??
    new MemoryBudget({ budgetBytes: options.budgetBytes ?? DEFAULT_BM25_INDEX_BUDGET_BYTES });
  const state: CacheState = {
    db: options.db,
    logger: options.logger,
    held: new HeldBm25Indexes(budget, options.logger),
    files: options.segmentDirectory
      ? new Bm25SegmentFiles(options.segmentDirectory, options.logger)
      : undefined,
    inlineBuildMax: options.inlineBuildMax ?? INLINE_BUILD_MAX_CHUNKS,
    counters: { served: 0, fellBack: 0, builds: 0 },
    building: new Map(),
    refused: new Map(),
    buildQueue: Promise.resolve(),
  };
  const { held, files, building, counters } = state;
  const sweep = startSweep(state, options.sweepMs ?? DEFAULT_SWEEP_MS);

  return {
    /**
     * The tenant's index brought up to the recall's snapshot (`tx`, REPEATABLE READ), or undefined:
     * cold and too large to build inline (built in the background), or ahead of this snapshot.
     */
    open: (
      tx: TransactionSql,
      tenantId: string,
      chunkCount: () => Promise<number>,
    ): Promise<Bm25IndexView | undefined> => openIndex(state, tx, tenantId, chunkCount),
    /** Catches a cached tenant up in a snapshot of its own (erasure elsewhere, periodic sweep). */
    refresh: (tenantId: string): Promise<void> => refreshIndex(state, tenantId),
    /**
     * Loads a tenant's index from its file into memory ahead of its first recall (warm-up after a
     * restart); false when there is no file, it is held already, or the budget refuses it.
     */
    async preload(tenantId: string): Promise<boolean> {
      if (held.get(tenantId) !== undefined || building.has(tenantId)) return false;
      const entry = await loadEntry(state, tenantId);
      if (entry === undefined || held.get(tenantId) !== undefined) return false;
      held.touch(tenantId);
      return held.install(tenantId, entry);
    },
    /** The tenants the last run held, most asked for first (its hot list). */
    async hotList(): Promise<string[]> {
      return files ? readHotList(files.directory) : [];
    },
    /** Drops a tenant's index from memory (its workspace was erased). */
    forget(tenantId: string): Promise<void> {
      held.drop(tenantId);
      held.tooLarge.delete(tenantId);
      state.refused.delete(tenantId);
      return files ? files.remove(tenantId) : Promise.resolve();
    },
    /** The tenant's cached index, if any (diagnostics and tests: what memory still holds). */
    peek(tenantId: string): TenantBm25Index | undefined {
      return held.get(tenantId)?.index;
    },
    /** Resolves when no background build or segment file operation is running (tests, benchmarks). */
    async idle(): Promise<void> {
      const fileOperations = () => files?.pending() ?? [];
      while (building.size > 0 || fileOperations().length > 0)
        await Promise.all([...building.values(), ...fileOperations()]);
    },
    stats(): Bm25IndexStats {
      const { served, fellBack, builds } = counters;
      return {
        tenants: held.entries.size,
        bytes: held.bytesHeld,
        served,
        fellBack,
        builds,
        loaded: files?.loaded ?? 0,
      };
    },
    close(): void {
      if (sweep) clearInterval(sweep);
      saveHotList(state);
      for (const tenantId of [...held.entries.keys()]) held.drop(tenantId);
    },
  };
}

export type Bm25IndexCache = ReturnType<typeof createBm25IndexCache>;

/** The recall's view of the tenant's index: see the cache's `open`. */
async function openIndex(
  state: CacheState,
  tx: TransactionSql,
  tenantId: string,
  chunkCount: () => Promise<number>,
): Promise<Bm25IndexView | undefined> {
  const { held, building, counters } = state;
  held.touch(tenantId);
  let entry = held.get(tenantId);
  let isHeld = true;
  if (entry === undefined && !building.has(tenantId)) {
    const fromFile = await loadEntry(state, tenantId);
    entry = held.get(tenantId);
    if (entry === undefined && fromFile !== undefined) {
      entry = fromFile;
      // Not admitted: it still answers this recall once caught up, then goes.
      isHeld = held.install(tenantId, fromFile);
    }
  }
  if (entry === undefined) {
    if ((await chunkCount()) > state.inlineBuildMax || building.has(tenantId)) {
      buildInBackground(state, tenantId);
      counters.fellBack++;
      return undefined;
    }
    // Built in the recall's own snapshot: exactly what it sees.
    const { entry: built, snapshot } = await build(state, tx, tenantId);
    const admitted = held.install(tenantId, built);
    if (admitted) void persist(state, tenantId, built);
    return viewOf(state, tenantId, built, snapshot, admitted);
  }
  const read = await readChunkFeed(tx, tenantId, entry.feed.watermark);
  if (read.prunedBelow > entry.feed.watermark) {
    // The feed no longer reaches back to this index: rebuild it.
    if (held.holds(tenantId, entry)) held.drop(tenantId);
    buildInBackground(state, tenantId);
    counters.fellBack++;
    return undefined;
  }
  const current = await catchUp(state, tx, tenantId, entry, read);
  if (!current || (isHeld && !held.holds(tenantId, entry))) {
    counters.fellBack++;
    return undefined;
  }
  return viewOf(state, tenantId, entry, read.snapshot, isHeld);
}

/** `isHeld`: the cached index, which other recalls may move on; otherwise one built for this recall alone. */
function viewOf(
  state: CacheState,
  tenantId: string,
  entry: Bm25IndexEntry,
  snapshot: FeedSnapshot,
  isHeld: boolean,
): Bm25IndexView {
  const stillCurrent = () => state.held.holds(tenantId, entry) && entry.feed.notAheadOf(snapshot);
  return viewOfBm25Index(entry, isHeld ? stillCurrent : undefined, state.counters);
}

/** Catches a cached tenant up in a snapshot of its own: see the cache's `refresh`. */
async function refreshIndex(state: CacheState, tenantId: string): Promise<void> {
  const { held, files } = state;
  const entry = held.get(tenantId);
  if (entry === undefined) {
    // Chunks were erased while the index is only on disk: its file goes (rebuilt when next asked).
    if (files) await files.remove(tenantId);
    return;
  }
  await withTenantSnapshot(state.db, tenantId, async (tx) => {
    const [tenant] = await tx<{ id: string }[]>`select id from tenants where id = ${tenantId}`;
    if (tenant === undefined) {
      held.drop(tenantId);
      return;
    }
    const read = await readChunkFeed(tx, tenantId, entry.feed.watermark);
    if (read.prunedBelow > entry.feed.watermark) {
      held.drop(tenantId);
      return;
    }
    await catchUp(state, tx, tenantId, entry, read);
  });
}

/** Applies what the snapshot sees of the feed under the entry's lock; false when it is ahead of it. */
function catchUp(
  state: CacheState,
  tx: TransactionSql,
  tenantId: string,
  entry: Bm25IndexEntry,
  read: FeedRead,
): Promise<boolean> {
  const { held } = state;
  return withEntryLock(entry, () =>
    catchUpBm25Index(tx, tenantId, entry, read, {
      rebuild: () => {
        // A bulk load: re-reading that many chunks would stall this recall; rebuild in the background.
        if (held.holds(tenantId, entry)) held.drop(tenantId);
        buildInBackground(state, tenantId);
      },
      resized: () => held.resized(tenantId, entry),
      compacted: () => queueMicrotask(() => void persist(state, tenantId, entry)),
    }),
  );
}

/** Builds the tenant's index in the given snapshot, counted. */
async function build(state: CacheState, tx: TransactionSql, tenantId: string) {
  const built = await buildBm25Index(tx, tenantId);
  state.counters.builds++;
  return built;
}

/** One background build at a time per process; the recall meanwhile uses SQL. */
function buildInBackground(state: CacheState, tenantId: string): void {
  const { held, building, refused } = state;
  if (building.has(tenantId)) return;
  const tooLargeAt = held.tooLarge.get(tenantId);
  if (tooLargeAt !== undefined && Date.now() - tooLargeAt < TOO_LARGE_RETRY_MS) return;
  const refusedAt = refused.get(tenantId);
  if (refusedAt !== undefined && Date.now() - refusedAt < REFUSED_RETRY_MS) return;
  const run = state.buildQueue
    .then(() => withTenantSnapshot(state.db, tenantId, (tx) => build(state, tx, tenantId)))
    .then(({ entry }) => {
      if (held.install(tenantId, entry)) {
        refused.delete(tenantId);
        void persist(state, tenantId, entry);
      } else refused.set(tenantId, Date.now());
    })
    .catch((error: unknown) =>
      state.logger.warn({ err: error, tenantId }, "BM25 index build failed; recall uses SQL"),
    )
    .finally(() => building.delete(tenantId));
  building.set(tenantId, run);
  state.buildQueue = run;
}

/** The tenant's index from its segment file, or undefined (no segment files, none, damaged). */
function loadEntry(state: CacheState, tenantId: string): Promise<Bm25IndexEntry | undefined> {
  return state.files ? state.files.load(tenantId) : Promise.resolve(undefined);
}

/** Writes the held index to its segment file (encoded under the entry's lock, written after). */
function persist(state: CacheState, tenantId: string, entry: Bm25IndexEntry): Promise<void> {
  const { held, files } = state;
  if (!files) return Promise.resolve();
  return files.write(tenantId, async () => {
    if (!held.holds(tenantId, entry)) return undefined; // dropped or replaced meanwhile: nothing to keep
    return withEntryLock(entry, async () => {
      entry.dirtySince = undefined;
      const encoded = encodeSegment(tenantId, entry.feed.toJSON(), entry.index.parts());
      // parts() compacts what changed since the last compaction: the budget hears the new size.
      if (held.holds(tenantId, entry)) held.resized(tenantId, entry);
      return encoded;
    });
  });
}

/** Writes the tenants held now, in the order the next start should warm them (ADR 0370). */
function saveHotList(state: CacheState): void {
  const { held, files } = state;
  if (!files || held.entries.size === 0) return;
  try {
    writeHotList(files.directory, held.hottest(HOT_LIST_LENGTH));
  } catch (error) {
    state.logger.debug({ err: error }, "BM25 hot list not written");
  }
}

/** Every `sweepMs`: the hot list written, every held index caught up, and written when long changed. */
function startSweep(state: CacheState, sweepMs: number): NodeJS.Timeout | undefined {
  if (sweepMs <= 0) return undefined;
  const sweep = setInterval(() => {
    saveHotList(state);
    for (const [tenantId, entry] of [...state.held.entries]) {
      refreshIndex(state, tenantId)
        .then(async () => {
          const since = entry.dirtySince;
          if (since !== undefined && Date.now() - since >= PERSIST_EVERY_MS)
            await persist(state, tenantId, entry);
        })
        .catch((error: unknown) => state.logger.warn({ err: error, tenantId }, "BM25 index catch-up failed"));
    }
  }, sweepMs);
  sweep.unref();
  return sweep;
}
