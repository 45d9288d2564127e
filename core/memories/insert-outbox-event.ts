import type { JsonObject } from "@bufbuild/protobuf";
import type { TransactionSql } from "../store/database.js";

export type MemoryEvent = "memory.created" | "memory.updated";

/**
 * Writes an event into the outbox in the caller's transaction (DESIGN "Jobs and outbox"), so the
 * webhook dispatcher sees it exactly when the memory exists. `payload` is the webhook body's `data`
 * object (spec "Events": documentId, title, chunksWritten for memory.created); event, tenantId and
 * occurredAt come from the outbox row's own columns.
 */
export async function insertOutboxEvent(
  tx: TransactionSql,
  tenantId: string,
  event: MemoryEvent,
  payload: JsonObject,
): Promise<void> {
  await tx`
    insert into outbox (tenant_id, event, payload)
    values (${tenantId}, ${event}, ${tx.json(payload)})`;
}

/** insertOutboxEvent for several events of one tenant, in one statement. */
export async function insertOutboxEvents(
  tx: TransactionSql,
  tenantId: string,
  events: readonly { readonly event: MemoryEvent; readonly payload: JsonObject }[],
): Promise<void> {
  if (events.length === 0) return;
  await tx`
    insert into outbox (tenant_id, event, payload)
    select ${tenantId}, e.event, e.payload
    from jsonb_to_recordset(${tx.json(events.map((e) => ({ event: e.event, payload: e.payload })))})
         as e(event text, payload jsonb)`;
}
