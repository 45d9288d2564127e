import type { Table } from "@lancedb/lancedb";
import { readChunkVectorRows } from "./read-chunk-vector-rows.js";
import { inBatches } from "./vector-filters.js";
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
  return vectors.exclusive(tenantId, space, () => purge(vectors, tenantId, space));
}

async function purge(vectors: VectorStore, tenantId: string, space: string): Promise<PurgeResult> {
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
  if (await rewriteFragmentsWithDeletions(vectors, table, tenantId, space)) {
    await table.optimize({ cleanupOlderThan: new Date() });
  }
  await table.delete(`chunk_id = '${PLACEHOLDER_ID}'`);
  await table.optimize({ cleanupOlderThan: new Date() });
  return { rows: await table.countRows(), versions: (await table.listVersions()).length };
}

/** Lance compacts a fragment on its own once more than this share of its rows is deleted. */
const MATERIALIZE_DELETIONS_SHARE = 0.1;

/**
 * Compaction never bins an ANN-indexed fragment with the unindexed placeholder fragment, so a large
 * indexed fragment with a few deleted rows (an erased lineage among 100k) keeps them in its data file.
 * Rewriting more than a tenth of such a fragment's live rows in place (merge on chunk_id: one commit,
 * readers never miss them) marks them deleted there too, which makes Lance rewrite the fragment
 * without any of its deleted rows on the next optimize. Returns whether anything was rewritten.
 */
async function rewriteFragmentsWithDeletions(
  vectors: VectorStore,
  table: Table,
  tenantId: string,
  space: string,
): Promise<boolean> {
  const latest = (await table.listVersions()).at(-1);
  const deleted = Number(latest?.metadata.total_deletion_file_rows ?? 0);
  if (deleted === 0) return false;
  // Without stable row ids a row id is the row's address: fragment id in the high 32 bits.
  const live = (await table.query().withRowId().select(["chunk_id"]).toArray()) as {
    chunk_id: string;
    _rowid: bigint | number;
  }[];
  const fragments = new Map<bigint, { chunkIds: string[]; span: number }>();
  for (const row of live) {
    const address = BigInt(row._rowid);
    const id = address >> 32n;
    const offset = Number(address & 0xffffffffn);
    const fragment = fragments.get(id) ?? { chunkIds: [], span: 0 };
    fragment.chunkIds.push(row.chunk_id);
    fragment.span = Math.max(fragment.span, offset + 1);
    fragments.set(id, fragment);
  }
  // A gap below a fragment's highest live offset is a deleted row; deleted rows at a fragment's end
  // leave no gap, so when the gaps do not account for every deleted row, every fragment is rewritten.
  const gaps = [...fragments.values()].reduce((sum, f) => sum + f.span - f.chunkIds.length, 0);
  const chosen = [...fragments.values()].filter((f) => gaps < deleted || f.span > f.chunkIds.length);
  for (const fragment of chosen) {
    const count = Math.min(
      fragment.chunkIds.length,
      Math.floor(MATERIALIZE_DELETIONS_SHARE * (fragment.span + deleted)) + 1,
    );
    for (const batch of inBatches(fragment.chunkIds.slice(0, count))) {
      const copies = await readChunkVectorRows(table, batch);
      await vectors.upsert(tenantId, space, copies, { mode: "merge" });
    }
  }
  return chosen.length > 0;
}
