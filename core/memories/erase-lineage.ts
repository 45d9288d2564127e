import type { TransactionSql } from "../store/database.js";
import { lockTenantGraph } from "./graph-lock.js";

/** What erasing one lineage removed from PostgreSQL (counts only: never content). */
export interface ErasedLineage {
  readonly lineageId: string;
  /** Every version's id: the caller removes their vectors (LanceDB is written outside the transaction). */
  readonly versionIds: readonly string[];
  readonly chunks: number;
  readonly edges: number;
  readonly outboxEvents: number;
  readonly webhookDeliveries: number;
  readonly jobs: number;
  /** Kept answers of idempotent writes (Idempotency-Key) that name a version. */
  readonly idempotencyKeys: number;
}

/**
 * Removes a memory lineage from PostgreSQL inside the caller's tenant transaction (docs/erasure.md):
 * every version, every chunk (the BM25 triggers record negative statistics deltas and strip the ids
 * from the index feed; the deltas are folded in here so no per-term row of the erased text survives), every
 * edge touching a version in either direction (so each link's inverse goes too), the outbox events,
 * webhook deliveries and kept idempotent answers that name a version, and the queued jobs that
 * concern one. Unlike update_fact,
 * which never deletes, this is the deliberate erasure of GDPR Art. 17. Returns undefined when `anyId`
 * names no version of the tenant. Takes the tenant's graph lock exclusively, like update_fact, so no
 * version or edge of the lineage is added while it runs.
 */
export async function eraseLineage(
  tx: TransactionSql,
  tenantId: string,
  anyId: string,
): Promise<ErasedLineage | undefined> {
  await lockTenantGraph(tx, tenantId, "exclusive");
  const [named] = await tx<{ lineage_id: string }[]>`
    select lineage_id from memories where tenant_id = ${tenantId} and id = ${anyId}`;
  if (!named) return undefined;
  const lineageId = named.lineage_id;
  const versions = await tx<{ id: string }[]>`
    select id from memories where tenant_id = ${tenantId} and lineage_id = ${lineageId}
    order by recorded_at for update`;
  const ids = versions.map((v) => v.id);
  const idArray = tx.array(ids);

  const edges = await tx`
    delete from edges
    where tenant_id = ${tenantId} and (from_id = any(${idArray}::uuid[]) or to_id = any(${idArray}::uuid[]))`;
  const chunks = await tx`
    delete from chunks where tenant_id = ${tenantId} and memory_id = any(${idArray}::uuid[])`;
  // Fold the deltas the delete trigger wrote (terms of the erased text with negative counts) into
  // the compacted statistics now, waiting for a running compaction instead of skipping: a term only
  // the erased lineage used loses its row, and no delta row keeps it.
  await tx`select pg_advisory_xact_lock(bm25_compact_lock(${tenantId}))`;
  await tx`select bm25_compact(${tenantId})`;

  // Events name the version in their payload (documentId, memoryId, …): match the ids as text so a
  // payload shape added later is covered too.
  const events = await tx<{ id: string }[]>`
    delete from outbox o
    where o.tenant_id = ${tenantId}
      and exists (select 1 from unnest(${idArray}::text[]) i where strpos(o.payload::text, i) > 0)
    returning o.id::text as id`;
  const webhookDeliveries = await eraseWebhookDeliveries(
    tx,
    tenantId,
    ids,
    events.map((e) => e.id),
  );
  const [jobs] = await tx<{ n: number }[]>`select remove_tenant_jobs(${tenantId}, ${idArray}::uuid[]) as n`;
  // An idempotent write keeps its answer for replays (protobuf bytes: the memory id and its title):
  // answers that name a version go, found by the id's bytes so any response shape is covered.
  const idempotencyKeys = await tx`
    delete from idempotency_keys k
    where k.tenant_id = ${tenantId} and k.response is not null
      and exists (select 1 from unnest(${idArray}::text[]) i
                  where position(convert_to(i, 'UTF8') in k.response) > 0)`;
  // A conversation session's turns are its content too (their rows go with the session's).
  await tx`delete from conversation_sessions where tenant_id = ${tenantId} and lineage_id = ${lineageId}`;
  await tx`delete from memories where tenant_id = ${tenantId} and id = any(${idArray}::uuid[])`;
  return {
    lineageId,
    versionIds: ids,
    chunks: chunks.count,
    edges: edges.count,
    outboxEvents: events.length,
    webhookDeliveries,
    jobs: jobs?.n ?? 0,
    idempotencyKeys: idempotencyKeys.count,
  };
}

/**
 * Deliveries of outgoing webhooks (the webhooks feature's table, when installed) carry the event body:
 * those fanned out of an erased event, or whose body names a version, are removed — delivered ones
 * too, since their body is the erased content.
 */
async function eraseWebhookDeliveries(
  tx: TransactionSql,
  tenantId: string,
  versionIds: readonly string[],
  outboxIds: readonly string[],
): Promise<number> {
  const [table] = await tx<{ present: boolean }[]>`
    select to_regclass('public.webhook_deliveries') is not null as present`;
  if (!table?.present) return 0;
  const removed = await tx.unsafe(
    `delete from webhook_deliveries d
     where d.tenant_id = $1
       and (d.outbox_id = any($2::bigint[])
            or exists (select 1 from unnest($3::text[]) i where strpos(d.body, i) > 0))`,
    [tenantId, outboxIds as string[], versionIds as string[]],
  );
  return removed.count;
}
