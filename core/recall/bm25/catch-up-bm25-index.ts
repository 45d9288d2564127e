import type { TransactionSql } from "../../store/database.js";
import type { Bm25IndexEntry } from "./bm25-index-entry.js";
import { type FeedRead, readChangedChunks, readCurrentChunkIds } from "./read-chunk-feed.js";

/** A catch-up of more changed chunks than this (and than the index holds) rebuilds instead. */
const CATCH_UP_MAX_CHUNKS = 20_000;

/** What the cache does about a catch-up's outcomes. */
export interface CatchUpHooks {
  /** Too much changed (a bulk load): re-reading it would stall this recall, so the index is rebuilt. */
  readonly rebuild: () => void;
  /** The index changed size. */
  readonly resized: () => void;
  /** The index was compacted: its file is rewritten (an erasure's lexemes leave the disk too). */
  readonly compacted: () => void;
}

/**
 * Applies what the snapshot sees of the feed to the entry's index; false when the index is ahead of
 * the snapshot or is to be rebuilt. Runs under the entry's lock.
 */
export async function catchUpBm25Index(
  tx: TransactionSql,
  tenantId: string,
  entry: Bm25IndexEntry,
  read: FeedRead,
  hooks: CatchUpHooks,
): Promise<boolean> {
  if (!entry.feed.notAheadOf(read.snapshot)) return false;
  const pending = entry.feed.pending(read.rows);
  if (pending.length > 0) {
    const ids = [...new Set(pending.flatMap((r) => r.chunkIds))];
    if (ids.length > Math.max(CATCH_UP_MAX_CHUNKS, entry.index.size)) {
      hooks.rebuild();
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
    hooks.resized();
    entry.dirtySince ??= Date.now();
    // The file is rewritten after a compaction, otherwise now and then by the sweep; in between, a
    // load catches up from the feed.
    if (compacted) hooks.compacted();
  }
  entry.feed.advance(read.snapshot, pending);
  return true;
}
