import type * as lancedb from "@lancedb/lancedb";
import { type ChunkVectorRow, toChunkVectorTable } from "./chunk-vector-schema.js";
import { createGroupCommit, type GroupCommitOptions, type Settled } from "./group-commit.js";
import { writeVerified } from "./write-verified.js";

/**
 * Concurrent upserts into one table commit together: one fragment and one version per batch instead
 * of per memory (issue #23). A lone write waits 3 ms for company; under load a batch gathers while the
 * previous one commits, so the linger is paid only when the table is idle.
 */
export const WRITE_BATCHING: GroupCommitOptions = { lingerMs: 3, maxRows: 2_000 };

export interface PendingUpsert {
  readonly table: lancedb.Table;
  readonly tenantId: string;
  readonly rows: readonly ChunkVectorRow[];
  readonly mode: "append" | "merge";
  readonly readBack: boolean;
}

export interface BatchedUpserts {
  /** One verified write of the rows (no batching). */
  write(
    table: lancedb.Table,
    tenantId: string,
    rows: readonly ChunkVectorRow[],
    mode: "append" | "merge",
    readBack: boolean,
  ): Promise<{ version: number }>;
  /** The rows written in one commit with the other upserts of the same `key` that gather meanwhile. */
  upsert(key: string, pending: PendingUpsert, rowCount: number): Promise<{ version: number }>;
}

export function createBatchedUpserts(
  onConflict: ((table: string, attempt: number) => void) | undefined,
  batching: GroupCommitOptions | undefined,
): BatchedUpserts {
  // Async so that rows Arrow refuses (a vector too long) reject this write instead of throwing.
  const write = async (
    table: lancedb.Table,
    tenantId: string,
    rows: readonly ChunkVectorRow[],
    mode: "append" | "merge",
    readBack: boolean,
  ) =>
    writeVerified(
      table,
      toChunkVectorTable(tenantId, rows),
      rows.map((r) => r.chunkId),
      { mode, readBack, ...(onConflict ? { onConflict } : {}) },
    );
  const settle = (promise: Promise<{ version: number }>): Promise<Settled<{ version: number }>> =>
    promise.then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  const upsert = createGroupCommit<PendingUpsert, { version: number }>(async (_key, batch) => {
    const [first] = batch;
    if (!first) return [];
    if (batch.length === 1)
      return [await settle(write(first.table, first.tenantId, first.rows, first.mode, first.readBack))];
    const together = await settle(
      write(
        first.table,
        first.tenantId,
        batch.flatMap((p) => p.rows),
        first.mode,
        first.readBack,
      ),
    );
    if (together.ok) return batch.map(() => together);
    // One writer's bad rows (or a failure we cannot attribute) must not fail the others: each writes
    // alone, merging on chunk_id in case part of the joint commit landed.
    const alone: Settled<{ version: number }>[] = [];
    for (const p of batch) alone.push(await settle(write(p.table, p.tenantId, p.rows, "merge", p.readBack)));
    return alone;
  }, batching ?? WRITE_BATCHING);
  return { write, upsert };
}
