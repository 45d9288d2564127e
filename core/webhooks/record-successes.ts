import type { Database } from "../store/database.js";
import type { ClaimedDelivery } from "./claim-due-deliveries.js";

/** What became of one attempt (record-attempt.ts). */
export type AttemptResult = "delivered" | "retry" | "dead" | "lease_lost";

export interface Success {
  readonly claimed: ClaimedDelivery;
  readonly status: number;
  readonly finishedAt: Date;
}

/**
 * Records successful attempts in one statement: each delivery delivered (only under the lease it
 * was claimed with) and the failure count of its subscription, when not zero already, reset. One
 * commit for many deliveries instead of one each: the commit (WAL flush) dominated per-delivery cost.
 * Returns the ids recorded; the others had lost their lease to another worker.
 */
export async function recordSuccesses(db: Database, successes: readonly Success[]): Promise<Set<string>> {
  if (successes.length === 0) return new Set();
  const rows = await db.sql<{ id: string }[]>`
    with input as (
      select * from unnest(
        ${successes.map((s) => s.claimed.id)}::uuid[],
        ${successes.map((s) => s.claimed.lease_token)}::uuid[],
        ${successes.map((s) => s.status)}::int[],
        ${successes.map((s) => s.claimed.attempts + 1)}::int[],
        ${successes.map((s) => s.finishedAt.toISOString())}::timestamptz[]
      ) as i(id, token, status, attempts, at)
    ), done as (
      update webhook_deliveries d
         set attempts = i.attempts, last_attempt_at = i.at, last_status = i.status, last_error = null,
             state = 'delivered', next_attempt_at = null, delivered_at = i.at,
             lease_token = null, lease_expires_at = null
        from input i
       where d.id = i.id and d.lease_token = i.token and d.state = 'pending'
      returning d.id, d.subscription_id
    ), reset as (
      update webhook_subscriptions s set consecutive_failures = 0
        from (select distinct subscription_id from done) x
       where s.id = x.subscription_id and s.consecutive_failures <> 0
    )
    select id::text from done`;
  return new Set(rows.map((r) => r.id));
}

export type RecordSuccess = (success: Success) => Promise<AttemptResult>;

/**
 * Collects the successes finishing in one turn of the event loop (at most `maxBatch`) and records
 * them together; each caller learns its own result. A crash before the flush leaves the deliveries
 * pending under their lease: they are sent again after it expires, as after any crash mid-attempt.
 */
export function createSuccessBatcher(db: Database, maxBatch = 64): RecordSuccess {
  const queue: { success: Success; resolve: (r: AttemptResult) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const batch = queue.splice(0, maxBatch);
    if (queue.length > 0) schedule();
    try {
      const recorded = await recordSuccesses(
        db,
        batch.map((b) => b.success),
      );
      for (const b of batch) b.resolve(recorded.has(b.success.claimed.id) ? "delivered" : "lease_lost");
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  }
  return (success) =>
    new Promise<AttemptResult>((resolve, reject) => {
      queue.push({ success, resolve, reject });
      schedule();
    });
}
