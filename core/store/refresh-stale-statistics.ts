import type { Sql } from "./database.js";

/** The tables a bulk load grows and whose per-tenant row estimates every tenant query depends on. */
export const GROWING_TABLES = ["memories", "chunks", "edges"] as const;

export interface StaleStatisticsOptions {
  readonly tables?: readonly string[];
  /** Rows inserted, updated or deleted since the last ANALYZE that always count as stale (default 1,000). */
  readonly minChangedRows?: number;
  /** …or this share of the rows the statistics know (default 0.2). */
  readonly changedShare?: number;
}

/**
 * ANALYZE each table whose planner statistics lag behind its rows; answers the tables analysed.
 *
 * Why: without statistics a tenant filter is guessed at 0.5 % of the rows and the row-level-security
 * qual (`tenant_id = current_setting(…)`) at another 0.5 %, so every index leading with tenant_id
 * looks like one row and the planner picks the smallest — the duplicate check of a write then read
 * the tenant's every current memory through the (tenant_id, lineage_id) key once per write: a bulk
 * load into one workspace fell from 805 to 70 memories/s between 10k and 100k, PostgreSQL 13 s per
 * batch of 100 (auto_explain, bench:bulk-ingest, 2026-12-06). Autovacuum would analyze, but it may
 * be off (it is on these CI machines), behind, or a minute away while a bulk load runs at 1,000/s.
 * Autovacuum's own rule, with a lower threshold; one caller at a time across processes (an advisory
 * lock), and nothing to do when autovacuum keeps up.
 */
export async function refreshStaleStatistics(
  sql: Sql,
  options: StaleStatisticsOptions = {},
): Promise<string[]> {
  const tables = options.tables ?? GROWING_TABLES;
  const minChanged = options.minChangedRows ?? 1000;
  const share = options.changedShare ?? 0.2;
  return sql.begin(async (tx) => {
    const [lock] = await tx<{ ok: boolean }[]>`
      select pg_try_advisory_xact_lock(hashtext('refresh-stale-statistics')) as ok`;
    if (!lock?.ok) return [];
    const rows = await tx<{ table: string; known: number; changed: number }[]>`
      select s.relname as table, greatest(c.reltuples, 0)::float8 as known,
             s.n_mod_since_analyze::float8 as changed
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname in ${tx(tables)}`;
    const stale = rows.filter((r) => r.changed > Math.max(minChanged, share * r.known)).map((r) => r.table);
    // Names from the list above, quoted as identifiers; ANALYZE may run inside a transaction.
    for (const table of stale) await tx`analyze ${tx(table)}`;
    return stale;
  });
}
