import type * as lancedb from "@lancedb/lancedb";
import { CHUNK_VECTOR_SCHEMA } from "./chunk-vector-schema.js";

/**
 * Runs `create` while holding a lock every process writing the same store shares (start-storage
 * passes a PostgreSQL advisory lock). LanceDB commits a table's creation as an Overwrite, and a
 * second Overwrite retried on top of the first silently empties the table of rows appended in
 * between, so a table must be created exactly once: per process by single flight, across
 * processes by this lock.
 */
export type SerializeCreation = <T>(tableName: string, create: () => Promise<T>) => Promise<T>;

const inProcessOnly: SerializeCreation = (_name, create) => create();

const isMissing = (error: unknown) => /not found|does not exist|was not found/i.test(String(error));

/** The table if it exists now (never cached: another process may have just created it). */
export async function openIfExists(
  connection: lancedb.Connection,
  name: string,
): Promise<lancedb.Table | undefined> {
  try {
    return await connection.openTable(name);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Opens or creates chunk-vector tables so that each is created exactly once per (tenant, space):
 * concurrent callers in this process share one creation, and the creation itself re-checks for the
 * table under the cross-process lock before it writes.
 */
export function createTableOnce(
  connection: lancedb.Connection,
  serialize: SerializeCreation = inProcessOnly,
): (name: string) => Promise<lancedb.Table> {
  const creating = new Map<string, Promise<lancedb.Table>>();
  const create = (name: string) =>
    serialize(name, async () => {
      const existing = await openIfExists(connection, name);
      if (existing) return existing;
      try {
        return await connection.createEmptyTable(name, CHUNK_VECTOR_SCHEMA, { mode: "create" });
      } catch (error) {
        // A writer that does not share our lock (an older process) created it first.
        if (/already exists/i.test(String(error))) return connection.openTable(name);
        throw error;
      }
    });
  return (name) => {
    let pending = creating.get(name);
    if (!pending) {
      pending = create(name).finally(() => creating.delete(name));
      creating.set(name, pending);
    }
    return pending;
  };
}
