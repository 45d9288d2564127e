import type { TransactionSql } from "../store/database.js";

/**
 * Serialises version changes against edge writes in one tenant's graph, for the rest of the
 * transaction. update_fact takes it exclusive: it closes a version's edges and copies them to the new
 * version, and two updates of linked facts running side by side would each copy an edge to the
 * other's closed version (the current graph would lose the edge). link/unlink take it shared, so they
 * never write an edge to a version an update is closing, and run concurrently with each other.
 * Per tenant rather than per fact because an update touches its neighbours' edges too; fact updates
 * are rare and short next to links and recalls.
 */
export async function lockTenantGraph(
  tx: TransactionSql,
  tenantId: string,
  mode: "shared" | "exclusive",
): Promise<void> {
  const key = `memory.graph:${tenantId}`;
  if (mode === "exclusive") await tx`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
  else await tx`select pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`;
}
