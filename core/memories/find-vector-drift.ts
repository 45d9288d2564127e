import type { MemoryDeps } from "./memory-deps.js";

export interface VectorDrift {
  /** The embedding space examined: the current embedder's. */
  readonly space: string;
  /** LanceDB rows to remove: no chunk in PostgreSQL, or a failed memory. */
  readonly orphanChunkIds: readonly string[];
  /** Live chunks with more than one LanceDB row: to leave with exactly one. */
  readonly duplicateChunkIds: readonly string[];
  /** Chunks marked vector_stored whose vector is absent: to embed again. */
  readonly missingChunkIds: readonly string[];
  /** PostgreSQL valid_to (epoch ms, "" for unset) → memories whose LanceDB validity differs. */
  readonly validity: ReadonlyMap<string, string[]>;
}

/**
 * Compares one tenant's current-space LanceDB table with its chunks. LanceDB is read first: vectors
 * are only written after their chunks committed, so every vector seen then has its chunk in the
 * PostgreSQL read that follows — a write racing this check is never mistaken for an orphan. Nor for
 * a lost vector: a chunk marked stored that the scan missed counts as missing only if LanceDB still
 * lacks it when asked again after the PostgreSQL read.
 */
export async function findVectorDrift(deps: MemoryDeps, tenantId: string): Promise<VectorDrift> {
  const space = deps.embedder.id;
  const rows = await deps.vectors.scan(tenantId, space);
  const chunks = await deps.db.withTenant(
    tenantId,
    (tx) =>
      tx<{ id: string; memory_id: string; valid_to: Date | null; vector_stored: boolean; live: boolean }[]>`
      select c.id, c.memory_id, c.valid_to, c.vector_stored,
             (m.status <> 'failed' and m.embedding_space = ${space}) as live
      from chunks c join memories m on m.id = c.memory_id and m.tenant_id = c.tenant_id
      where c.tenant_id = ${tenantId}`,
  );
  const byId = new Map(chunks.map((c) => [c.id, c]));
  const seen = new Map<string, number>();
  for (const row of rows) seen.set(row.chunkId, (seen.get(row.chunkId) ?? 0) + 1);

  const orphans = new Set<string>();
  const duplicates = new Set<string>();
  const missing = new Set<string>();
  const validity = new Map<string, Set<string>>();
  for (const row of rows) {
    const chunk = byId.get(row.chunkId);
    if (!chunk || !chunk.live) {
      orphans.add(row.chunkId);
      continue;
    }
    if ((seen.get(row.chunkId) ?? 0) > 1) duplicates.add(row.chunkId);
    const truth = chunk.valid_to === null ? null : chunk.valid_to.getTime();
    if (row.validTo !== truth) {
      const key = truth === null ? "" : String(truth);
      const set = validity.get(key) ?? new Set<string>();
      set.add(chunk.memory_id);
      validity.set(key, set);
    }
  }
  const unseen = chunks.filter((c) => c.live && c.vector_stored && !seen.has(c.id)).map((c) => c.id);
  // Marked stored yet not in the scan: either lost, or written after the scan and marked before the
  // read above (an index job beside reconcile, as at every worker start). A chunk is marked only once
  // its vector is read back from LanceDB, so a second look now tells the two apart.
  const late =
    unseen.length === 0 ? new Set<string>() : await deps.vectors.presentChunkIds(tenantId, space, unseen);
  for (const id of unseen) if (!late.has(id)) missing.add(id);
  return {
    space,
    orphanChunkIds: [...orphans],
    duplicateChunkIds: [...duplicates],
    missingChunkIds: [...missing],
    validity: new Map([...validity].map(([k, v]) => [k, [...v]])),
  };
}
