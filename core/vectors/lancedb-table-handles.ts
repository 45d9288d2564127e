import type * as lancedb from "@lancedb/lancedb";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import { createTableOnce, type SerializeCreation } from "./create-table-once.js";

/**
 * What one open table handle holds in native memory (dataset, schema, fragment list) for a table of
 * a few hundred rows: 1,000 tables opened and searched in one process grew RSS by ≈ 80 KB each.
 */
export const OPEN_TABLE_BYTES = 96 * 1024;

/** The open table handles of one connection, by table name. */
export interface TableHandles {
  /** The table, or undefined when it does not exist (a miss is not cached). */
  existing(name: string): Promise<lancedb.Table | undefined>;
  /** The table, created first unless it exists (under the cross-process creation lock). */
  createOrOpen(name: string): Promise<lancedb.Table>;
  /**
   * Tables whose ANN index is being (or was) loaded into LanceDB's index cache by warm(). A search of
   * a table whose load is under way waits for it instead of loading the same index a second time
   * beside it (two loads of a 100k-row index on 2 cores took longer than one, then the search).
   */
  readonly warming: Map<string, Promise<void>>;
  /** Forgets the table's handle (it is dropped). */
  forget(name: string): void;
}

export function createTableHandles(
  connection: lancedb.Connection,
  budget: MemoryBudget | undefined,
  serializeCreation: SerializeCreation | undefined,
): TableHandles {
  const tables = new Map<string, Promise<lancedb.Table | undefined>>();
  const warming = new Map<string, Promise<void>>();

  /**
   * An open handle is kept while the budget admits it; an evicted one is only forgotten, never closed:
   * a search or write still using it keeps it alive, and the garbage collector frees it after.
   */
  const keep = (name: string, table: Promise<lancedb.Table | undefined>) => {
    if (!budget) return;
    const admitted = budget.admit(`vectors:${name}`, OPEN_TABLE_BYTES, () => {
      if (tables.get(name) !== table) return;
      tables.delete(name);
      warming.delete(name);
    });
    if (!admitted && tables.get(name) === table) {
      tables.delete(name);
      warming.delete(name);
    }
  };

  const existing = (name: string): Promise<lancedb.Table | undefined> => {
    budget?.touch(`vectors:${name}`);
    let table = tables.get(name);
    if (!table) {
      const opening: Promise<lancedb.Table | undefined> = connection.openTable(name).then(
        (t) => {
          keep(name, opening);
          return t;
        },
        (error: unknown) => {
          tables.delete(name);
          if (/not found|does not exist|was not found/i.test(String(error))) return undefined;
          throw error;
        },
      );
      table = opening;
      tables.set(name, table);
    }
    return table.then((t) => {
      // A miss is not cached: another process may create the table any moment.
      if (t === undefined) tables.delete(name);
      return t;
    });
  };

  const createTable = createTableOnce(connection, serializeCreation);
  const createOrOpen = async (name: string): Promise<lancedb.Table> => {
    const found = await existing(name);
    if (found) return found;
    const created = await createTable(name);
    const held = Promise.resolve(created);
    tables.set(name, held);
    keep(name, held);
    return created;
  };

  const forget = (name: string) => {
    tables.delete(name);
    warming.delete(name);
    budget?.remove(`vectors:${name}`);
  };

  return { existing, createOrOpen, warming, forget };
}
