import { replayedSince } from "../idempotency/replay-scope.js";
import { contentSha256, LINEAGE_REL_TYPES, SUPERSEDES } from "../memories/index.js";
import type { Database } from "../store/database.js";

/** update-fact.ts's input and result, the parts a replay reads and answers. */
interface ReplayedInput {
  readonly tenantId: string;
  readonly targetId: string;
  readonly newTitle: string;
  readonly newContent: string;
}
interface ReplayedResult {
  readonly oldMemoryId: string;
  readonly newMemoryId: string;
  readonly supersedesEdge: string;
  readonly chunksWritten: number;
  readonly carriedOverLinks: number;
  readonly validFrom: Date;
}

/**
 * A keyed update_fact re-run after its first run's process died (core/idempotency): when the target
 * was superseded by exactly the requested version, recorded after the key was claimed, that version
 * is the first run's own committed write — answered as the first run would have answered, instead
 * of 409 superseded and instead of a second version. Undefined outside a replay or when the
 * successor is another writer's (then the 409 stands).
 */
export async function replayedUpdate(
  db: Database,
  input: ReplayedInput,
): Promise<ReplayedResult | undefined> {
  const since = replayedSince();
  if (since === undefined) return undefined;
  const { tenantId, targetId } = input;
  return db.withTenant(tenantId, async (tx) => {
    const [row] = await tx<{ new_id: string; edge_id: string; chunks: number; valid_from: Date }[]>`
      select n.id as new_id, e.id as edge_id, n.chunks_written as chunks, n.valid_from
      from edges e
      join memories n on n.tenant_id = e.tenant_id and n.id = e.from_id
      where e.tenant_id = ${tenantId} and e.to_id = ${targetId} and e.rel_type = ${SUPERSEDES}
        and n.title = ${input.newTitle}
        and n.content_sha256 = ${contentSha256(input.newContent)}
        and n.recorded_at >= ${since}
      order by n.recorded_at
      limit 1`;
    if (!row) return undefined;
    const [carried] = await tx<{ n: number }[]>`
      select count(*)::int as n from edges
      where tenant_id = ${tenantId} and (from_id = ${row.new_id} or to_id = ${row.new_id})
        and valid_from = ${row.valid_from}
        and rel_type <> all(${tx.array([...LINEAGE_REL_TYPES])}::text[])`;
    return {
      oldMemoryId: targetId,
      newMemoryId: row.new_id,
      supersedesEdge: row.edge_id,
      chunksWritten: row.chunks,
      carriedOverLinks: Math.ceil((carried?.n ?? 0) / 2),
      validFrom: row.valid_from,
    };
  });
}
