import type { TransactionSql } from "../../store/database.js";
import { type Bm25IndexEntry, newBm25IndexEntry } from "./bm25-index-entry.js";
import { FeedWatermark } from "./feed-watermark.js";
import { type FeedSnapshot, readCurrentChunks, readFeedXids, readSnapshot } from "./read-chunk-feed.js";
import { type ChunkLexemes, TenantBm25Index } from "./tenant-bm25-index.js";

/** Builds the tenant's index from its current chunks in the given snapshot. */
export async function buildBm25Index(
  tx: TransactionSql,
  tenantId: string,
): Promise<{ entry: Bm25IndexEntry; snapshot: FeedSnapshot }> {
  const snapshot = await readSnapshot(tx);
  const chunks: ChunkLexemes[] = [];
  const [xids] = await Promise.all([
    readFeedXids(tx, tenantId, snapshot.xmin),
    readCurrentChunks(tx, tenantId, (page) => {
      for (const chunk of page) chunks.push(chunk);
    }),
  ]);
  const index = new TenantBm25Index(chunks);
  return { entry: newBm25IndexEntry(index, FeedWatermark.builtIn(snapshot, xids)), snapshot };
}
