import type { Logger } from "../../config/logger.js";
import type { Database } from "../store/database.js";

/**
 * Writes recall_log rows (one per recall, read back by readRecallStats) in batches: a transaction of
 * its own per recall was five statements and a pool connection for a statistic, as many as the recall's
 * own ranking reads (bench:load). Rows wait at most `intervalMs`; reading a tenant's stats flushes its
 * rows first, so stats in this process always count every recall it answered.
 */
export interface RecallLogWriter {
  record(tenantId: string, latencyMs: number): void;
  /** Writes the pending rows (of one tenant, or all). */
  flush(tenantId?: string): Promise<void>;
}

export interface RecallLogWriterOptions {
  readonly db: Database;
  readonly logger: Logger;
  readonly intervalMs?: number;
  /** A tenant's rows are written at once when this many are pending. */
  readonly maxPending?: number;
}

export function createRecallLogWriter(options: RecallLogWriterOptions): RecallLogWriter {
  const { db, logger } = options;
  const intervalMs = options.intervalMs ?? 200;
  const maxPending = options.maxPending ?? 500;
  const pending = new Map<string, number[]>();
  let timer: NodeJS.Timeout | undefined;

  async function write(tenantId: string, latencies: readonly number[]): Promise<void> {
    await db
      .withTenant(tenantId, async (tx) => {
        // A statistic, not a record anyone relies on: do not make recalls wait for a WAL flush.
        await tx`set local synchronous_commit = off`;
        await tx`insert into recall_log (tenant_id, latency_ms)
                 select ${tenantId}, l from unnest(${tx.array([...latencies])}::int[]) l`;
      })
      .catch((error: unknown) =>
        logger.warn({ err: error, tenantId, rows: latencies.length }, "recall latency not recorded"),
      );
  }

  function take(tenantId: string): number[] {
    const latencies = pending.get(tenantId) ?? [];
    pending.delete(tenantId);
    return latencies;
  }

  async function flush(tenantId?: string): Promise<void> {
    const tenants = tenantId === undefined ? [...pending.keys()] : [tenantId];
    await Promise.all(
      tenants.map((id) => {
        const latencies = take(id);
        return latencies.length === 0 ? undefined : write(id, latencies);
      }),
    );
  }

  return {
    record(tenantId, latencyMs) {
      const latencies = pending.get(tenantId) ?? [];
      latencies.push(Math.max(0, Math.round(latencyMs)));
      pending.set(tenantId, latencies);
      if (latencies.length >= maxPending) {
        void write(tenantId, take(tenantId));
        return;
      }
      if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          void flush();
        }, intervalMs);
        // Pending statistics do not keep a stopping process alive.
        timer.unref();
      }
    },
    flush,
  };
}
