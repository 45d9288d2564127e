import type { VectorStore } from "./vector-store.js";

/** The placeholder row's ids: the nil uuid, never a real chunk or memory. */
const PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000";

export interface PurgeResult {
  readonly rows: number;
  /** Table versions left after the cleanup (1: only the current one). */
  readonly versions: number;
}

/**
 * Makes deleted rows of a (tenant, space) table physically gone (docs/erasure.md "Vacuum"). A LanceDB
 * delete only writes a deletion file: the row stays in its data file, and every older table version
 * still lists it. Compaction rewrites fragments without their deleted rows, but leaves a fragment
 * alone while it is the only one and less than a tenth of it is deleted — the usual case after
 * erasing one lineage. So a placeholder row is appended first (a second, small fragment makes the
 * pair eligible for compaction), the table is compacted, then every version older than now is
 * removed with its files; the placeholder is deleted and the versions are cleaned once more.
 * The placeholder is never a search result: its validity interval is empty (valid_to = valid_from = 0).
 *
 * Versions a reader in another process may still be on are removed too: the worker runs this a
 * while after the erasure (VECTOR_PURGE_DELAY_MS), when no read started before it can be running.
 */
export async function purgeVectorTable(
  vectors: VectorStore,
  tenantId: string,
  space: string,
): Promise<PurgeResult> {
  const table = await vectors.openTable(tenantId, space);
  if (!table) return { rows: 0, versions: 0 };
  const unit = new Float32Array(1);
  unit[0] = 1;
  await vectors.upsert(tenantId, space, [
    {
      chunkId: PLACEHOLDER_ID,
      memoryId: PLACEHOLDER_ID,
      vector: unit,
      validFrom: new Date(0),
      validTo: new Date(0),
    },
  ]);
  await table.optimize({ cleanupOlderThan: new Date() });
  await table.delete(`chunk_id = '${PLACEHOLDER_ID}'`);
  await table.optimize({ cleanupOlderThan: new Date() });
  return { rows: await table.countRows(), versions: (await table.listVersions()).length };
}
