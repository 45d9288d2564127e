import type { Sql } from "../store/database.js";
import { enqueueJob } from "../store/job-queue.js";
import {
  MAINTAIN_VECTORS_TASK,
  RECONCILE_ALL_TASK,
  RECONCILE_TENANT_TASK,
  REEMBED_TENANT_TASK,
} from "./memory-jobs.js";

/** How often the worker sweeps every tenant for drift, compaction, indexes and re-embedding. */
export const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

/**
 * (Re)schedules the periodic sweep. One pending job under a fixed key: calling this from every worker
 * start and from the sweep itself never piles up sweeps. Without `runAt` it runs now — at start, so a
 * changed embedding provider starts migrating at once.
 */
export function scheduleMaintenance(sql: Sql, runAt?: Date): Promise<string> {
  return enqueueJob(sql, RECONCILE_ALL_TASK, {}, { jobKey: RECONCILE_ALL_TASK, ...(runAt ? { runAt } : {}) });
}

/**
 * Reconcile leaves memories younger than 2 minutes alone (their write may still be running), so the
 * sweep at a worker's start skips the writes a crash cut off just before it. A second sweep shortly
 * after that age completes them (and any queued memory whose job was lost) within minutes of the
 * restart instead of at the next 10-minute sweep. Its own job key: it does not move the periodic one.
 */
export const SWEEP_AFTER_START_DELAY_MS = 150_000;

export function scheduleSweepAfterStart(sql: Sql): Promise<string> {
  return enqueueJob(
    sql,
    RECONCILE_ALL_TASK,
    {},
    {
      jobKey: `${RECONCILE_ALL_TASK}:after-start`,
      runAt: new Date(Date.now() + SWEEP_AFTER_START_DELAY_MS),
    },
  );
}

/**
 * The sweep: one reconcile job per tenant with memories, one maintenance job per vector table, one
 * re-embed job per tenant with versions outside the current embedding space; then the next sweep.
 * Per-tenant jobs run in parallel across workers and fail independently.
 */
export async function runMaintenanceSweep(
  sql: Sql,
  currentSpace: string,
  tables: readonly { tenantId: string; space: string }[],
): Promise<{ tenants: number; tables: number; reembeds: number }> {
  const tenants = await sql<{ tenant_id: string }[]>`select distinct tenant_id from memories`;
  for (const { tenant_id } of tenants) {
    await enqueueJob(
      sql,
      RECONCILE_TENANT_TASK,
      { tenantId: tenant_id },
      { jobKey: `${RECONCILE_TENANT_TASK}:${tenant_id}` },
    );
  }
  for (const table of tables) {
    await enqueueJob(
      sql,
      MAINTAIN_VECTORS_TASK,
      { tenantId: table.tenantId, space: table.space },
      {
        jobKey: `${MAINTAIN_VECTORS_TASK}:${table.tenantId}:${table.space}`,
      },
    );
  }
  // A workspace that chose its own embedder (BYOK) lives in its own space, and while it moves to a
  // new one both the old (searched) and the new (being filled) are wanted.
  const stale = await sql<{ tenant_id: string }[]>`
    select distinct m.tenant_id from memories m
    left join tenant_model_selection s on s.tenant_id = m.tenant_id
    where m.status <> 'failed' and m.embedding_space is not null
      and m.embedding_space <> coalesce(s.target_space, s.active_space, ${currentSpace})`;
  const selections = await sql<
    { tenant_id: string; active_space: string | null; target_space: string | null }[]
  >`
    select tenant_id, active_space, target_space from tenant_model_selection`;
  const wanted = new Map(
    selections.map((s) => [s.tenant_id, new Set([s.active_space ?? currentSpace, s.target_space ?? ""])]),
  );
  const staleTables = tables
    .filter((t) => !(wanted.get(t.tenantId) ?? new Set([currentSpace])).has(t.space))
    .map((t) => t.tenantId);
  const reembed = new Set([...stale.map((r) => r.tenant_id), ...staleTables]);
  for (const tenantId of reembed) {
    await enqueueJob(
      sql,
      REEMBED_TENANT_TASK,
      { tenantId },
      { jobKey: `${REEMBED_TENANT_TASK}:${tenantId}` },
    );
  }
  await scheduleMaintenance(sql, new Date(Date.now() + MAINTENANCE_INTERVAL_MS));
  return { tenants: tenants.length, tables: tables.length, reembeds: reembed.size };
}

/**
 * Every append leaves a LanceDB fragment, and searches slow down with many (measured: 400 one-row
 * fragments 95 ms, the same rows compacted 8 ms), so the 10-minute sweep is too slow for a busy
 * tenant: each write whose table version is a multiple of this asks the worker to maintain the table.
 */
export const MAINTAIN_EVERY_VERSIONS = 32;

/**
 * The maintenance run after a burst of writes: each request moves it this far ahead (graphile-worker
 * replaces a pending job of the same key, run_at included), so it runs once writes have paused. Without
 * it the commits since the last in-burst run (up to 31 versions and their fragments) and the versions
 * younger than the retention at that run waited for the 10-minute sweep: a 10k-memory bulk load ended
 * with manifests at 13.7 % of its vector data (issue #23). Longer than VERSION_RETENTION_MS, so that
 * run prunes every version but the newest.
 */
export const SETTLE_AFTER_MS = 30_000;

/**
 * Rows appended since the last request that also ask for maintenance: StoreMemories batches commit
 * hundreds of rows per table version, and a 10k-memory load in 28 versions never reached the 32nd —
 * its table kept 26 fragments and no ANN index (flat search, ≈ 95 ms at 10k rows) until the sweep.
 * Below the ANN index's 1,200 rows, so a load that passes them gets its settling run.
 */
export const MAINTAIN_EVERY_ROWS = 1_000;

/**
 * After a write appended `rows` vectors and made table version `version`: asks the worker to maintain
 * the table at every MAINTAIN_EVERY_VERSIONS-th version, or once MAINTAIN_EVERY_ROWS rows were
 * appended since the last request, and (re)schedules the settling run.
 */
export function requestVectorMaintenance(
  sql: Sql,
  tenantId: string,
  space: string,
  version: number,
  rows = 0,
): Promise<void> {
  const jobKey = `${MAINTAIN_VECTORS_TASK}:${tenantId}:${space}`;
  const appended = (rowsSinceRequest.get(jobKey) ?? 0) + rows;
  const due = (version > 0 && version % MAINTAIN_EVERY_VERSIONS === 0) || appended >= MAINTAIN_EVERY_ROWS;
  if (!due) {
    rowsSinceRequest.set(jobKey, appended);
    return Promise.resolve();
  }
  rowsSinceRequest.delete(jobKey);
  // Every write of a group commit (core/vectors/group-commit.ts) sees the same table version: one
  // request for it is enough (a batch of 29 memories sent 58 enqueue_job calls, 5 % of a bulk
  // load's PostgreSQL time). Only the newest version per table is remembered.
  const last = lastRequested.get(jobKey);
  if (last?.version === version) return last.request;
  const request = (async () => {
    // While writes go on: no index rebuild yet (maintain-vector-table.ts), the settling run makes it.
    await enqueueJob(sql, MAINTAIN_VECTORS_TASK, { tenantId, space, duringWrites: true }, { jobKey });
    await enqueueJob(
      sql,
      MAINTAIN_VECTORS_TASK,
      { tenantId, space },
      { jobKey: `${jobKey}:settle`, runAt: new Date(Date.now() + SETTLE_AFTER_MS) },
    );
  })();
  lastRequested.set(jobKey, { version, request });
  // A request that failed may be made again by the next write of that version.
  request.catch(() => {
    if (lastRequested.get(jobKey)?.request === request) lastRequested.delete(jobKey);
  });
  return request;
}

const lastRequested = new Map<string, { version: number; request: Promise<void> }>();
/** Per table, in this process: rows appended since its last request (a few bytes per table written). */
const rowsSinceRequest = new Map<string, number>();

/** A maintenance request that cannot be enqueued is not the write's failure: the sweep covers it. */
export function ignoreMaintenanceError(): void {}
