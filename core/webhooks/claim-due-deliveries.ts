import { randomUUID } from "node:crypto";
import { plansWith } from "../plans/plans.js";
import type { Database } from "../store/database.js";

/** A delivery this worker may attempt now, with what sending it needs. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly tenant_id: string;
  readonly subscription_id: string;
  readonly event: string;
  readonly body: string;
  /** Failed attempts so far. */
  readonly attempts: number;
  readonly url: string;
  readonly secret_sealed: Uint8Array;
  readonly previous_secret_sealed: Uint8Array | null;
  readonly previous_secret_expires_at: Date | null;
  readonly lease_token: string;
}

/**
 * Claims due deliveries of active subscriptions, oldest event first: one statement locks the rows
 * (SKIP LOCKED) and writes a lease, so two workers never hold the same attempt. A worker that dies
 * mid-attempt leaves its lease to expire (longer than the 15 s timeout plus margin); then the attempt
 * is made again by any worker, with the same delivery id.
 */
export async function claimDueDeliveries(
  db: Database,
  options: { now: Date; limit: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const token = randomUUID();
  const leaseUntil = new Date(options.now.getTime() + options.leaseMs);
  return db.sql<ClaimedDelivery[]>`
    with due as (
      select d.id
        from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id
        join tenants t on t.id = d.tenant_id
       where d.state = 'pending' and d.next_attempt_at <= ${options.now}
         and (d.lease_expires_at is null or d.lease_expires_at <= ${options.now})
         and s.active and t.plan = any(${plansWith("webhooks")}::text[])
       order by d.next_attempt_at, d.occurred_at
       limit ${options.limit}
         for update of d skip locked
    )
    update webhook_deliveries d
       set lease_token = ${token}, lease_expires_at = ${leaseUntil}
      from due, webhook_subscriptions s
     where d.id = due.id and s.id = d.subscription_id
    returning d.id, d.tenant_id, d.subscription_id, d.event, d.body, d.attempts, s.url, s.secret_sealed,
              s.previous_secret_sealed, s.previous_secret_expires_at, d.lease_token`;
}
