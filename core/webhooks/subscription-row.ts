import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type WebhookSubscription,
  WebhookSubscriptionSchema,
} from "../../gen/memory/v1/webhook_service_pb.js";
import { notFound } from "../errors.js";
import type { TransactionSql } from "../store/database.js";

/** A subscription as the service shows it: never its secrets. */
export interface SubscriptionRow {
  readonly id: string;
  readonly url: string;
  readonly event_kinds: string[];
  readonly description: string;
  readonly active: boolean;
  readonly consecutive_failures: number;
  readonly created_at: Date;
  readonly deactivated_at: Date | null;
  readonly previous_secret_expires_at: Date | null;
}

export async function selectSubscription(
  tx: TransactionSql,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<SubscriptionRow> {
  const lock = options.forUpdate ? tx`for update` : tx``;
  const [row] = await tx<SubscriptionRow[]>`
    select id, url, event_kinds, description, active, consecutive_failures, created_at, deactivated_at,
           previous_secret_expires_at
      from webhook_subscriptions where tenant_id = ${tenantId} and id = ${id} ${lock}`;
  if (!row) throw notFound("webhook subscription");
  return row;
}

export function subscriptionMessage(row: SubscriptionRow, now = new Date()): WebhookSubscription {
  const overlap = row.previous_secret_expires_at;
  return create(WebhookSubscriptionSchema, {
    id: row.id,
    url: row.url,
    eventKinds: row.event_kinds,
    active: row.active,
    consecutiveFailures: row.consecutive_failures,
    createdAt: timestampFromDate(row.created_at),
    ...(row.deactivated_at ? { deactivatedAt: timestampFromDate(row.deactivated_at) } : {}),
    description: row.description,
    ...(overlap && overlap > now ? { previousSecretExpiresAt: timestampFromDate(overlap) } : {}),
  });
}
