import type { Logger } from "../../../config/logger.js";
import { MemoryBudget } from "../../../lib/memory-budget/memory-budget.js";
import type { Database, TransactionSql } from "../../store/database.js";
import { withTenantSnapshot } from "../../store/with-tenant-snapshot.js";
import {
  decodeSegment,
  encodeSegment,
  readSegmentFile,
  removeSegmentFile,
  writeSegmentFile,
} from "./bm25-segment-file.js";
import { FeedWatermark } from "./feed-watermark.js";
import { readHotList, writeHotList } from "./hot-list.js";
import {
  type FeedRead,
  type FeedSnapshot,
  readChangedChunks,
  readChunkFeed,
  readCurrentChunkIds,
  readCurrentChunks,
  readFeedXids,
  readSnapshot,
} from "./read-chunk-feed.js";
import type { ScoredChunk, WeightedTerm } from "./scored-chunk.js";
import { type ChunkLexemes, TenantBm25Index } from "./tenant-bm25-index.js";

/** Default byte budget of all cached tenant indexes of one process (BM25_INDEX_BUDGET_MB). */
export const DEFAULT_BM25_INDEX_BUDGET_BYTES = 256 * 1024 * 1024;
/** Tenants up to this many chunks are indexed inside the first recall (≈ 0.1 s); larger ones in the background. */
export const INLINE_BUILD_MAX_CHUNKS = 2_000;
/** How often cached indexes catch up on their own, so erased chunks leave memory without a recall. */
const DEFAULT_SWEEP_MS = 30_000;
/** A catch-up of more changed chunks than this (and than the index holds) rebuilds instead. */
const CATCH_UP_MAX_CHUNKS = 20_000;
/** A background build the budget refused (others were wanted more) is not repeated for this long. */
const REFUSED_RETRY_MS = 60_000;
/** A tenant too large for the budget is not built again for this long. */
const TOO_LARGE_RETRY_MS = 10 * 60_000;

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

/** Which of the current chunks a view's search may return. */
export interface ViewRestriction {
  /** Only these chunks (a recall filter). */
  readonly allowedChunkIds?: Iterable<string> | undefined;
  /** Only chunks already valid at this time (point-in-time recall: the current part of it). */
  readonly validAt?: Date | undefined;
}

/** A tenant's index as one recall's snapshot sees it. */
export interface Bm25IndexView {
  /**
   * Exact top k over the current chunks the snapshot sees (optionally restricted); undefined when
   * another recall has moved the shared index past this snapshot meanwhile (the caller uses SQL).
   */
  search(
    terms: readonly WeightedTerm[],
    avgdl: number,
    k: number,
    restriction?: ViewRestriction,
  ): ScoredChunk[] | undefined;
}

interface Entry {
  readonly index: TenantBm25Index;
  readonly feed: FeedWatermark;
  bytes: number;
  /** Catch-ups of one tenant run one after the other. */
  lock: Promise<unknown>;
  /** When the index last changed without being written to its segment file (undefined: written). */
  dirtySince?: number | undefined;
}

/** How many of the most asked-for tenants the hot list names (warmed after a restart). */
const HOT_LIST_LENGTH = 1_000;
/** A changed index is written to its segment at most this often (the sweep looks). */
const PERSIST_EVERY_MS = 5 * 60_000;

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

/**
 * The process's derived BM25 indexes (ADR 0230): one per tenant the workspace state budget admits
 * (frequency-aware, issue 46: lib/memory-budget). PostgreSQL stays the source of truth: an index is
 * built from the chunks' tsvectors and kept current from the change feed inside each recall's
 * snapshot; whatever cannot be proven current for that snapshot is answered by the SQL design.
 */
export function createBm25IndexCache(options: Bm25IndexCacheOptions) {
  const { db, logger } = options;
  const inlineBuildMax = options.inlineBuildMax ?? INLINE_BUILD_MAX_CHUNKS;
  const entries = new Map<string, Entry>();
  const building = new Map<string, Promise<void>>();
  const tooLarge = new Map<string, number>();
  const refused = new Map<string, number>();
  let buildQueue: Promise<unknown> = Promise.resolve();
  let served = 0;
  let fellBack = 0;
  let builds = 0;
  let loaded = 0;
  const segments = options.segmentDirectory;
  /** Each tenant's file operations, one after the other (a removal is never overtaken by a write). */
  const fileChains = new Map<string, Promise<void>>();
  const onFile = (tenantId: string, work: () => Promise<void>): Promise<void> => {
    const run = (fileChains.get(tenantId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => logger.warn({ err: error, tenantId }, "BM25 segment file operation failed"));
    fileChains.set(tenantId, run);
    void run.finally(() => {
      if (fileChains.get(tenantId) === run) fileChains.delete(tenantId);
    });
    return run;
  };

  const budget =
    options.budget ??
    new MemoryBudget({ budgetBytes: options.budgetBytes ?? DEFAULT_BM25_INDEX_BUDGET_BYTES });
  const keyOf = (tenantId: string) => `bm25:${tenantId}`;
  let bytesHeld = 0;

  const drop = (tenantId: string) => {
    const entry = entries.get(tenantId);
    if (entry === undefined) return;
    entries.delete(tenantId);
    bytesHeld -= entry.bytes;
    budget.remove(keyOf(tenantId));
  };

  /** Installs an index if the budget admits it (frequency-aware: see MemoryBudget). */
  const install = (tenantId: string, entry: Entry): boolean => {
    drop(tenantId);
    if (entry.bytes > budget.budgetBytes) {
      tooLarge.set(tenantId, Date.now());
      logger.warn(
        { tenantId, bytes: entry.bytes, budget: budget.budgetBytes },
        "BM25 index exceeds the workspace state budget (WORKSPACE_STATE_BUDGET_MB); recall uses SQL",
      );
      return false;
    }
    const admitted = budget.admit(keyOf(tenantId), entry.bytes, () => {
      if (entries.get(tenantId) !== entry) return;
      entries.delete(tenantId);
      bytesHeld -= entry.bytes;
    });
    if (!admitted) return false;
    entries.set(tenantId, entry);
    bytesHeld += entry.bytes;
    return true;
  };

  /** A held index changed size (catch-up, compaction). */
  const resized = (tenantId: string, entry: Entry) => {
    const bytes = entry.index.bytes;
    if (entries.get(tenantId) === entry) bytesHeld += bytes - entry.bytes;
    entry.bytes = bytes;
    budget.resize(keyOf(tenantId), bytes);
  };

  /** Writes the held index to its segment file (encoded under the entry's lock, written after). */
  const persist = (tenantId: string, entry: Entry): Promise<void> => {
    if (!segments) return Promise.resolve();
    return onFile(tenantId, async () => {
      if (entries.get(tenantId) !== entry) return; // dropped or replaced meanwhile: nothing to keep
      const bytes = await withLock(entry, async () => {
        entry.dirtySince = undefined;
        const encoded = encodeSegment(tenantId, entry.feed.toJSON(), entry.index.parts());
        // parts() compacts what changed since the last compaction: the budget hears the new size.
        if (entries.get(tenantId) === entry) resized(tenantId, entry);
        return encoded;
      });
      await writeSegmentFile(segments, tenantId, bytes);
    });
  };

  /** The tenant's index from its segment file, or undefined (none, damaged: removed, then rebuilt). */
  const loading = new Map<string, Promise<Entry | undefined>>();
  const load = (tenantId: string): Promise<Entry | undefined> => {
    if (!segments) return Promise.resolve(undefined);
    let run = loading.get(tenantId);
    if (run === undefined) {
      run = (async () => {
        await fileChains.get(tenantId);
        const bytes = await readSegmentFile(segments, tenantId);
        if (bytes === undefined) return undefined;
        try {
          const segment = decodeSegment(tenantId, bytes);
          const index = TenantBm25Index.fromParts(segment.parts);
          loaded++;
          return {
            index,
            feed: FeedWatermark.restore(segment.feed),
            bytes: index.bytes,
            lock: Promise.resolve(),
          };
        } catch (error) {
          logger.warn({ err: error, tenantId }, "BM25 segment file unreadable; rebuilt from PostgreSQL");
          await onFile(tenantId, () => removeSegmentFile(segments, tenantId));
          return undefined;
        }
      })().finally(() => loading.delete(tenantId));
      loading.set(tenantId, run);
    }
    return run;
  };

  /** Builds the tenant's index from its current chunks in the given snapshot. */
  const build = async (
    tx: TransactionSql,
    tenantId: string,
  ): Promise<{ entry: Entry; snapshot: FeedSnapshot }> => {
    const snapshot = await readSnapshot(tx);
    const chunks: ChunkLexemes[] = [];
    const [xids] = await Promise.all([
      readFeedXids(tx, tenantId, snapshot.xmin),
      readCurrentChunks(tx, tenantId, (page) => {
        for (const chunk of page) chunks.push(chunk);
      }),
    ]);
    const index = new TenantBm25Index(chunks);
    builds++;
    const entry = {
      index,
      feed: FeedWatermark.builtIn(snapshot, xids),
      bytes: index.bytes,
      lock: Promise.resolve(),
    };
    return { entry, snapshot };
  };

  /** One background build at a time per process; the recall meanwhile uses SQL. */
  const buildInBackground = (tenantId: string) => {
    if (building.has(tenantId)) return;
    const tooLargeAt = tooLarge.get(tenantId);
    if (tooLargeAt !== undefined && Date.now() - tooLargeAt < TOO_LARGE_RETRY_MS) return;
    const refusedAt = refused.get(tenantId);
    if (refusedAt !== undefined && Date.now() - refusedAt < REFUSED_RETRY_MS) return;
    const run = buildQueue
      .then(() => withTenantSnapshot(db, tenantId, (tx) => build(tx, tenantId)))
      .then(({ entry }) => {
        if (install(tenantId, entry)) {
          refused.delete(tenantId);
          void persist(tenantId, entry);
        } else refused.set(tenantId, Date.now());
      })
      .catch((error: unknown) =>
        logger.warn({ err: error, tenantId }, "BM25 index build failed; recall uses SQL"),
      )
      .finally(() => building.delete(tenantId));
    building.set(tenantId, run);
    buildQueue = run;
  };

  const withLock = <T>(entry: Entry, fn: () => Promise<T>): Promise<T> => {
    const run = entry.lock.then(fn, fn);
    entry.lock = run.catch(() => undefined);
    return run;
  };

  /** Applies what the snapshot sees of the feed; false when the index is ahead of the snapshot. */
  const catchUp = async (tx: TransactionSql, tenantId: string, entry: Entry, read: FeedRead) => {
    if (!entry.feed.notAheadOf(read.snapshot)) return false;
    const pending = entry.feed.pending(read.rows);
    if (pending.length > 0) {
      const ids = [...new Set(pending.flatMap((r) => r.chunkIds))];
      if (ids.length > Math.max(CATCH_UP_MAX_CHUNKS, entry.index.size)) {
        // A bulk load: re-reading that many chunks would stall this recall; rebuild in the background.
        if (entries.get(tenantId) === entry) drop(tenantId);
        buildInBackground(tenantId);
        return false;
      }
      const changed = await readChangedChunks(tx, tenantId, ids);
      for (const id of ids) entry.index.remove(id);
      for (const chunk of changed.current) entry.index.put(chunk);
      // Chunks were erased (an empty feed row, migration 0230): whatever the index holds that is no
      // longer a current chunk goes, and the arrays are rewritten so the erased text leaves memory.
      const erased = pending.some((r) => r.chunkIds.length === 0) || changed.erased.length > 0;
      if (erased) {
        const current = new Set(await readCurrentChunkIds(tx, tenantId));
        for (const id of entry.index.chunkIds()) if (!current.has(id)) entry.index.remove(id);
      }
      const compacted = erased || entry.index.wantsCompaction;
      if (compacted) entry.index.compact();
      resized(tenantId, entry);
      entry.dirtySince ??= Date.now();
      // The file is rewritten after a compaction (an erasure's lexemes leave the disk too), otherwise
      // now and then by the sweep; in between, a load catches up from the feed.
      if (compacted) queueMicrotask(() => void persist(tenantId, entry));
    }
    entry.feed.advance(read.snapshot, pending);
    return true;
  };

  /** `held`: the cached index, which other recalls may move on; otherwise one built for this recall alone. */
  const viewOf = (tenantId: string, entry: Entry, snapshot: FeedSnapshot, held = true): Bm25IndexView => ({
    search(terms, avgdl, k, { allowedChunkIds, validAt } = {}) {
      // Between the catch-up and now, another recall may have applied transactions this one does not see.
      if (held && (entries.get(tenantId) !== entry || !entry.feed.notAheadOf(snapshot))) {
        fellBack++;
        return undefined;
      }
      served++;
      const allowed = allowedChunkIds === undefined ? undefined : entry.index.allow(allowedChunkIds);
      // A JavaScript Date holds milliseconds; valid_from is kept in microseconds.
      const validAtUs = validAt === undefined ? undefined : validAt.getTime() * 1000;
      return entry.index.search(terms, avgdl, k, { allowed, validAtUs });
    },
  });

  /**
   * The tenant's index brought up to the recall's snapshot (`tx`, REPEATABLE READ), or undefined:
   * cold and too large to build inline (built in the background), or ahead of this snapshot.
   */
  async function open(
    tx: TransactionSql,
    tenantId: string,
    chunkCount: () => Promise<number>,
  ): Promise<Bm25IndexView | undefined> {
    budget.touch(keyOf(tenantId));
    let entry = entries.get(tenantId);
    let held = true;
    if (entry === undefined && !building.has(tenantId)) {
      const fromFile = await load(tenantId);
      entry = entries.get(tenantId);
      if (entry === undefined && fromFile !== undefined) {
        entry = fromFile;
        // Not admitted: it still answers this recall once caught up, then goes.
        held = install(tenantId, fromFile);
      }
    }
    if (entry === undefined) {
      if ((await chunkCount()) > inlineBuildMax || building.has(tenantId)) {
        buildInBackground(tenantId);
        fellBack++;
        return undefined;
      }
      // Built in the recall's own snapshot: exactly what it sees.
      const { entry: built, snapshot } = await build(tx, tenantId);
      const admitted = install(tenantId, built);
      if (admitted) void persist(tenantId, built);
      return viewOf(tenantId, built, snapshot, admitted);
    }
    const read = await readChunkFeed(tx, tenantId, entry.feed.watermark);
    if (read.prunedBelow > entry.feed.watermark) {
      // The feed no longer reaches back to this index: rebuild it.
      if (entries.get(tenantId) === entry) drop(tenantId);
      buildInBackground(tenantId);
      fellBack++;
      return undefined;
    }
    const current = await withLock(entry, () => catchUp(tx, tenantId, entry, read));
    if (!current || (held && entries.get(tenantId) !== entry)) {
      fellBack++;
      return undefined;
    }
    return viewOf(tenantId, entry, read.snapshot, held);
  }

  /** Catches a cached tenant up in a snapshot of its own (erasure elsewhere, periodic sweep). */
  async function refresh(tenantId: string): Promise<void> {
    const entry = entries.get(tenantId);
    if (entry === undefined) {
      // Chunks were erased while the index is only on disk: its file goes (rebuilt when next asked).
      if (segments) await onFile(tenantId, () => removeSegmentFile(segments, tenantId));
      return;
    }
    await withTenantSnapshot(db, tenantId, async (tx) => {
      const [tenant] = await tx<{ id: string }[]>`select id from tenants where id = ${tenantId}`;
      if (tenant === undefined) {
        drop(tenantId);
        return;
      }
      const read = await readChunkFeed(tx, tenantId, entry.feed.watermark);
      if (read.prunedBelow > entry.feed.watermark) {
        drop(tenantId);
        return;
      }
      await withLock(entry, () => catchUp(tx, tenantId, entry, read));
    });
  }

  /** The tenants held now, in the order the next start should warm them (ADR 0370). */
  const saveHotList = () => {
    if (!segments || entries.size === 0) return;
    // Warm first what a cold recall would pay most for: how often it is asked for × how much there
    // is to load (a 100k-chunk workspace's first recall loads 30 MB of index and 100 MB of ANN index).
    const worth = (tenantId: string, entry: Entry) => (budget.frequency(keyOf(tenantId)) + 1) * entry.bytes;
    const tenants = [...entries]
      .sort(([a, x], [b, y]) => worth(b, y) - worth(a, x))
      .slice(0, HOT_LIST_LENGTH)
      .map(([tenantId]) => tenantId);
    try {
      writeHotList(segments, tenants);
    } catch (error) {
      logger.debug({ err: error }, "BM25 hot list not written");
    }
  };

  const sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS;
  const sweep =
    sweepMs > 0
      ? setInterval(() => {
          saveHotList();
          for (const [tenantId, entry] of [...entries]) {
            refresh(tenantId)
              .then(async () => {
                const since = entry.dirtySince;
                if (since !== undefined && Date.now() - since >= PERSIST_EVERY_MS)
                  await persist(tenantId, entry);
              })
              .catch((error: unknown) => logger.warn({ err: error, tenantId }, "BM25 index catch-up failed"));
          }
        }, sweepMs)
      : undefined;
  sweep?.unref();

  return {
    open,
    refresh,
    /**
     * Loads a tenant's index from its file into memory ahead of its first recall (warm-up after a
     * restart); false when there is no file, it is held already, or the budget refuses it.
     */
    async preload(tenantId: string): Promise<boolean> {
      if (entries.has(tenantId) || building.has(tenantId)) return false;
      const entry = await load(tenantId);
      if (entry === undefined || entries.has(tenantId)) return false;
      budget.touch(keyOf(tenantId));
      return install(tenantId, entry);
    },
    /** The tenants the last run held, most asked for first (its hot list). */
    async hotList(): Promise<string[]> {
      return segments ? readHotList(segments) : [];
    },
    /** Drops a tenant's index from memory (its workspace was erased). */
    forget(tenantId: string): Promise<void> {
      drop(tenantId);
      tooLarge.delete(tenantId);
      refused.delete(tenantId);
      return segments ? onFile(tenantId, () => removeSegmentFile(segments, tenantId)) : Promise.resolve();
    },
    /** The tenant's cached index, if any (diagnostics and tests: what memory still holds). */
    peek(tenantId: string): TenantBm25Index | undefined {
      return entries.get(tenantId)?.index;
    },
    /** Resolves when no background build or segment file operation is running (tests, benchmarks). */
    async idle(): Promise<void> {
      while (building.size > 0 || fileChains.size > 0)
        await Promise.all([...building.values(), ...fileChains.values()]);
    },
    stats(): Bm25IndexStats {
      return { tenants: entries.size, bytes: bytesHeld, served, fellBack, builds, loaded };
    },
    close(): void {
      if (sweep) clearInterval(sweep);
      saveHotList();
      for (const tenantId of [...entries.keys()]) drop(tenantId);
    },
  };
}

export type Bm25IndexCache = ReturnType<typeof createBm25IndexCache>;
