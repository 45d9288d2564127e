import type * as lancedb from "@lancedb/lancedb";

/**
 * Whether a table's ANN index covers every row (the worker's maintenance indexes appended rows; until
 * then they are searched flat beside the index). Asked once per coalesced search, answered from a
 * cache per table version: a table's version changes with every write, and the store reads with
 * `readConsistencyInterval: 0`, so a write acknowledged before a search is always seen by it.
 * Measured on 10k rows: `version()` ≈ 0.15 ms, `indexStats()` ≈ 0.1 ms (bench/vector-search-cost.ts).
 */
export function createIndexCoverage(): (table: lancedb.Table) => Promise<boolean> {
  const known = new WeakMap<lancedb.Table, { readonly version: number; readonly covered: boolean }>();
  return async (table) => {
    const version = await table.version();
    const cached = known.get(table);
    if (cached?.version === version) return cached.covered;
    try {
      const index = (await table.listIndices()).find((i) => i.columns.includes("vector"));
      const stats = index === undefined ? undefined : await table.indexStats(index.name);
      const covered = stats !== undefined && stats.numIndexedRows > 0 && stats.numUnindexedRows === 0;
      known.set(table, { version, covered });
      return covered;
    } catch {
      // The index being replaced by the worker meanwhile, say: the exact path serves any table.
      return false;
    }
  };
}
