import type { TransactionSql } from "../../store/database.js";
import type { ChunkLexemes } from "./tenant-bm25-index.js";

/** A REPEATABLE READ snapshot: transactions below xmin are finished; xip were running at xmax. */
export interface FeedSnapshot {
  readonly xmin: number;
  readonly xmax: number;
  readonly xip: ReadonlySet<number>;
}

/** Whether a committed transaction's writes are visible in the snapshot. */
export function visibleIn(snapshot: FeedSnapshot, xid: number): boolean {
  return xid < snapshot.xmin || (xid < snapshot.xmax && !snapshot.xip.has(xid));
}

export interface FeedRow {
  readonly xid: number;
  readonly chunkIds: readonly string[];
}

/** What one snapshot sees of a tenant's feed from a watermark on. */
export interface FeedRead {
  readonly snapshot: FeedSnapshot;
  /** Feed rows of transactions at or above the watermark, in feed order. */
  readonly rows: readonly FeedRow[];
  /** Rows below this transaction id may have been pruned (0: none were). */
  readonly prunedBelow: number;
}

/** The recall's snapshot (pg_current_snapshot() is the transaction's under REPEATABLE READ). */
export async function readSnapshot(tx: TransactionSql): Promise<FeedSnapshot> {
  const [row] = await tx<{ xmin: string; xmax: string; xip: string[] }[]>`
    select pg_snapshot_xmin(s)::text as xmin, pg_snapshot_xmax(s)::text as xmax,
           array(select x::text from pg_snapshot_xip(s) x) as xip
    from pg_current_snapshot() s`;
  return {
    xmin: Number(row?.xmin ?? 0),
    xmax: Number(row?.xmax ?? 0),
    xip: new Set((row?.xip ?? []).map(Number)),
  };
}

/**
 * The snapshot and every feed row it sees from `watermark` on, in one statement: every recall asks
 * this, and under load each statement costs PostgreSQL and the driver more than its rows do.
 */
export async function readChunkFeed(
  tx: TransactionSql,
  tenantId: string,
  watermark: number,
): Promise<FeedRead> {
  const [row] = await tx<
    {
      xmin: string;
      xmax: string;
      xip: string[];
      pruned_below: string | null;
      feed: { xid: string; ids: string[] }[];
    }[]
  >`
    select pg_snapshot_xmin(s)::text as xmin, pg_snapshot_xmax(s)::text as xmax,
           array(select x::text from pg_snapshot_xip(s) x) as xip,
           (select h.pruned_below::text from bm25_chunk_feed_horizon h where h.tenant_id = ${tenantId})
             as pruned_below,
           coalesce((select json_agg(json_build_object('xid', f.xid::text, 'ids', f.chunk_ids) order by f.id)
                     from bm25_chunk_feed f
                     where f.tenant_id = ${tenantId} and f.xid >= ${watermark}), '[]'::json) as feed
    from pg_current_snapshot() s`;
  return {
    snapshot: {
      xmin: Number(row?.xmin ?? 0),
      xmax: Number(row?.xmax ?? 0),
      xip: new Set((row?.xip ?? []).map(Number)),
    },
    rows: (row?.feed ?? []).map((r) => ({ xid: Number(r.xid), chunkIds: r.ids })),
    prunedBelow: Number(row?.pruned_below ?? 0),
  };
}

/** The transactions with feed rows that the snapshot sees at or above `from`. */
export async function readFeedXids(tx: TransactionSql, tenantId: string, from: number): Promise<number[]> {
  const rows = await tx<{ xid: string }[]>`
    select distinct xid::text from bm25_chunk_feed where tenant_id = ${tenantId} and xid >= ${from}`;
  return rows.map((r) => Number(r.xid));
}

/** Lexemes and term frequencies of a chunk's tsvector (migration 0030's rule: positions, 1 to 32,767). */
const chunkLexemes = (tx: TransactionSql) => tx`
  cross join lateral (
    select coalesce(array_agg(u.lexeme), '{}') as lexemes,
           coalesce(array_agg(least(coalesce(cardinality(u.positions), 1), 32767)), '{}') as tfs
    from unnest(c.tsv) u
  ) l`;

interface ChunkRow {
  id: string;
  lexemes: string[];
  tfs: number[];
  valid_from_us: number;
}

/** valid_from in µs since the epoch: below 2^53 until the year 2255, so exact as a double. */
const validFromUs = (tx: TransactionSql) =>
  tx`(extract(epoch from c.valid_from) * 1000000)::float8 as valid_from_us`;

const lexemesOf = (r: ChunkRow): ChunkLexemes => ({
  chunkId: r.id,
  lexemes: r.lexemes,
  tfs: r.tfs,
  validFromUs: r.valid_from_us,
});

/**
 * The listed chunks as the snapshot sees them: the current ones with their lexemes, and which of them
 * no longer exist at all (erased, not merely superseded).
 */
export async function readChangedChunks(
  tx: TransactionSql,
  tenantId: string,
  chunkIds: readonly string[],
): Promise<{ current: ChunkLexemes[]; erased: string[] }> {
  const rows = await tx<(ChunkRow & { current: boolean })[]>`
    select c.id, c.valid_to is null as current, l.lexemes, l.tfs, ${validFromUs(tx)}
    from unnest(${tx.array([...new Set(chunkIds)])}::uuid[]) as wanted(id)
    -- One primary-key lookup per id, whatever the planner thinks of the tenant's size
    -- (read-candidate-chunks.ts says why OFFSET 0).
    cross join lateral (
      select * from chunks c where c.id = wanted.id and c.tenant_id = ${tenantId} offset 0
    ) c ${chunkLexemes(tx)}`;
  const found = new Set(rows.map((r) => r.id));
  return {
    current: rows.filter((r) => r.current).map(lexemesOf),
    erased: chunkIds.filter((id) => !found.has(id)),
  };
}

/** Every current chunk of the tenant, in pages (the index build). */
export async function readCurrentChunks(
  tx: TransactionSql,
  tenantId: string,
  onPage: (chunks: ChunkLexemes[]) => void,
): Promise<void> {
  await tx<ChunkRow[]>`
    select c.id, l.lexemes, l.tfs, ${validFromUs(tx)}
    from chunks c ${chunkLexemes(tx)}
    where c.tenant_id = ${tenantId} and c.valid_to is null`.cursor(2_000, (page) => {
    onPage(page.map(lexemesOf));
  });
}

/** The ids of the tenant's current chunks (reconciling the index after an erasure). */
export async function readCurrentChunkIds(tx: TransactionSql, tenantId: string): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    select c.id from chunks c where c.tenant_id = ${tenantId} and c.valid_to is null`;
  return rows.map((r) => r.id);
}
