import type { TableHandles } from "./lancedb-table-handles.js";

/**
 * Opens the tables and loads their ANN indexes into LanceDB's index cache, one after the other; a
 * table whose load is under way already is waited for, not loaded twice.
 */
export async function warmVectorTables(handles: TableHandles, names: readonly string[]): Promise<void> {
  const { warming } = handles;
  for (const name of names) {
    const under = warming.get(name);
    if (under) {
      await under;
      continue;
    }
    const loading = (async () => {
      const table = await handles.existing(name);
      if (!table) return;
      for (const index of await table.listIndices())
        if (index.columns.includes("vector")) await table.prewarmIndex(index.name);
    })();
    // What searches and later warm() calls wait on never rejects: a failed load is forgotten (the
    // next warm() tries again) and the search loads what it needs itself.
    warming.set(
      name,
      loading.catch(() => {
        if (warming.get(name) !== undefined) warming.delete(name);
      }),
    );
    await loading;
  }
}
