import type { WebhookEventKind } from "./event-kinds.js";

/** The JSON value of a body's `data` (spec "Delivery"; docs/webhooks.md for each kind). */
export type EventData = { readonly [key: string]: string | number | boolean | null };

/**
 * The exact body of a delivery, built once and stored, so every attempt sends the same bytes: event,
 * tenantId, occurredAt (ISO 8601 with milliseconds, UTC), data.
 */
export function eventBody(
  event: WebhookEventKind,
  tenantId: string,
  occurredAt: Date,
  data: EventData,
): string {
  return JSON.stringify({ event, tenantId, occurredAt: occurredAt.toISOString(), data });
}

/** An outbox row as the fan-out reads it, with the versions memory.updated names. */
export interface OutboxEvent {
  readonly event: string;
  readonly tenant_id: string;
  readonly occurred_at: Date;
  readonly payload: { readonly [key: string]: unknown };
  /** valid_from of the version in payload.documentId. */
  readonly new_valid_from: Date | null;
  /** valid_to of the version in payload.oldMemoryId (memory.updated). */
  readonly old_valid_to: Date | null;
}

const text = (v: unknown) => (typeof v === "string" ? v : null);
const count = (v: unknown) => (typeof v === "number" ? v : 0);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The `data` of an outbox event. memory.created: documentId, title, chunksWritten (spec).
 * memory.updated: oldMemoryId, newMemoryId, lineageId, title, validFrom (of the new version),
 * oldValidTo (when the old one stopped being valid), chunksWritten, updateReason (or null).
 */
export function outboxEventData(row: OutboxEvent): EventData {
  const p = row.payload;
  if (row.event === "memory.updated") {
    return {
      oldMemoryId: text(p.oldMemoryId),
      newMemoryId: text(p.documentId),
      lineageId: text(p.lineageId),
      title: text(p.title),
      validFrom: iso(row.new_valid_from),
      oldValidTo: iso(row.old_valid_to),
      chunksWritten: count(p.chunksWritten),
      updateReason: text(p.updateReason),
    };
  }
  return { documentId: text(p.documentId), title: text(p.title), chunksWritten: count(p.chunksWritten) };
}
