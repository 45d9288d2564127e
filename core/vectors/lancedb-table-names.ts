import type * as lancedb from "@lancedb/lancedb";
import { parseVectorTableName, tenantTablePrefix } from "./vector-table-name.js";

/** The names of the tenant's chunk-vector tables, one per embedding space. */
export async function tenantTableNames(connection: lancedb.Connection, tenantId: string): Promise<string[]> {
  const prefix = tenantTablePrefix(tenantId);
  const names: string[] = [];
  let startAfter = prefix;
  for (;;) {
    const page = await connection.tableNames({ startAfter, limit: 100 });
    const mine = page.filter((n) => n.startsWith(prefix));
    names.push(...mine);
    if (page.length < 100 || mine.length < page.length) return names;
    startAfter = page[page.length - 1] ?? prefix;
  }
}

/** Every chunk-vector table of the store (worker maintenance). */
export async function listVectorTables(
  connection: lancedb.Connection,
): Promise<{ tenantId: string; space: string; name: string }[]> {
  const result: { tenantId: string; space: string; name: string }[] = [];
  let startAfter: string | undefined;
  for (;;) {
    const page = await connection.tableNames(startAfter ? { startAfter, limit: 500 } : { limit: 500 });
    for (const name of page) {
      const parsed = parseVectorTableName(name);
      if (parsed) result.push({ ...parsed, name });
    }
    if (page.length < 500) return result;
    startAfter = page[page.length - 1];
  }
}

/** The embedding spaces the tenant has a table for. */
export async function tenantSpaces(connection: lancedb.Connection, tenantId: string): Promise<string[]> {
  return (await tenantTableNames(connection, tenantId))
    .map((name) => parseVectorTableName(name)?.space)
    .filter((s): s is string => s !== undefined);
}

/** True when the store answers a table listing. */
export async function answersTableListing(connection: lancedb.Connection): Promise<boolean> {
  try {
    await connection.tableNames({ limit: 1 });
    return true;
  } catch {
    return false;
  }
}

/** Drops the table; one that does not exist is no error. */
export async function dropTableIfExists(connection: lancedb.Connection, name: string): Promise<void> {
  try {
    await connection.dropTable(name);
  } catch (error) {
    if (!/not found|does not exist/i.test(String(error))) throw error;
  }
}
