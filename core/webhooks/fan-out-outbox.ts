import { plansWith } from "../plans/plans.js";
import type { Database } from "../store/database.js";
import { MAX_BODY_BYTES } from "./delivery-rules.js";
import { eventBody, type OutboxEvent, outboxEventData } from "./event-body.js";
import { isWebhookEventKind } from "./event-kinds.js";

interface PendingEvent extends OutboxEvent {
  readonly id: string;
}

interface Target {
  readonly id: string;
  readonly tenant_id: string;
  readonly event_kinds: string[];
}

/**
 * Turns undispatched outbox events into deliveries (DESIGN "Jobs and outbox"): in one transaction it
 * locks a batch of events (SKIP LOCKED, so workers share the backlog), inserts one pending delivery
 * per subscription that selected the kind, and marks the events dispatched. A crash before commit
 * leaves the events undispatched; the unique (subscription, event) pair keeps a replay from creating
 * a second delivery, so each delivery id is made exactly once. Deactivated subscriptions get their
 * deliveries too; they wait until reactivation. Returns the number of events handled.
 */
export async function fanOutOutbox(db: Database, options: { now: Date; batchSize: number }): Promise<number> {
  return db.sql.begin(async (tx) => {
    const events = await tx<PendingEvent[]>`
      select o.id::text as id, o.tenant_id, o.event, o.payload, o.occurred_at,
             nm.valid_from as new_valid_from, om.valid_to as old_valid_to
        from outbox o
        left join memories nm on o.event = 'memory.updated' and nm.id = (o.payload->>'documentId')::uuid
        left join memories om on o.event = 'memory.updated' and om.id = (o.payload->>'oldMemoryId')::uuid
       where o.dispatched_at is null
       order by o.id
       limit ${options.batchSize}
         for update of o skip locked`;
    if (events.length === 0) return 0;
    const tenantIds = [...new Set(events.map((e) => e.tenant_id))];
    const targets = await tx<Target[]>`
      select s.id, s.tenant_id, s.event_kinds
        from webhook_subscriptions s join tenants t on t.id = s.tenant_id
       where s.tenant_id = any(${tenantIds}::uuid[]) and t.plan = any(${plansWith("webhooks")}::text[])`;
    const rows = [];
    for (const event of events) {
      if (!isWebhookEventKind(event.event)) continue;
      const body = eventBody(event.event, event.tenant_id, event.occurred_at, outboxEventData(event));
      const tooLarge = Buffer.byteLength(body) > MAX_BODY_BYTES;
      for (const target of targets) {
        if (target.tenant_id !== event.tenant_id || !target.event_kinds.includes(event.event)) continue;
        rows.push({
          tenant_id: event.tenant_id,
          subscription_id: target.id,
          outbox_id: event.id,
          event: event.event,
          body: tooLarge ? "" : body,
          occurred_at: event.occurred_at,
          state: tooLarge ? "dead" : "pending",
          next_attempt_at: tooLarge ? null : options.now,
          last_error: tooLarge ? `body is larger than ${MAX_BODY_BYTES} bytes` : null,
        });
      }
    }
    if (rows.length > 0) {
      await tx`
        insert into webhook_deliveries ${tx(rows, "tenant_id", "subscription_id", "outbox_id", "event", "body", "occurred_at", "state", "next_attempt_at", "last_error")}
        on conflict (subscription_id, outbox_id) do nothing`;
    }
    await tx`update outbox set dispatched_at = ${options.now}
              where id = any(${events.map((e) => e.id)}::bigint[])`;
    return events.length;
  });
}
