import type { Logger } from "../config/logger.js";
import type { Database } from "../core/store/database.js";
import { attemptDelivery } from "../core/webhooks/attempt-delivery.js";
import { claimDueDeliveries } from "../core/webhooks/claim-due-deliveries.js";
import { DELIVERY_TIMEOUT_MS } from "../core/webhooks/delivery-rules.js";
import { fanOutOutbox } from "../core/webhooks/fan-out-outbox.js";
import { createSuccessBatcher } from "../core/webhooks/record-successes.js";
import type { SecretBox } from "../core/webhooks/secret-box.js";
import type { SendWebhook } from "../core/webhooks/send-webhook.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { WakeableSleep } from "./wakeable-sleep.js";

export interface WebhookDispatcherOptions {
  readonly db: Database;
  readonly logger: Logger;
  readonly send: SendWebhook;
  /** Unset without MASTER_KEY: events are still marked dispatched, nothing is signed or sent. */
  readonly secretBox: SecretBox | undefined;
  /** The time the schedule runs on; tests move it forward instead of sleeping. */
  readonly clock?: () => Date;
  /** Attempts in flight at once in this process (default 16). */
  readonly concurrency?: number;
  /** Outbox events fanned out per transaction (default 500). */
  readonly batchSize?: number;
  /** Fallback poll when no notification arrives (default 1 s). */
  readonly pollMs?: number;
  /** How long a claim blocks other workers: beyond the attempt's timeout (default 15 s + 30 s). */
  readonly leaseMs?: number;
  /** LISTEN for commits of events and deliveries (default true). */
  readonly listen?: boolean;
  /** The process's metrics: attempts by result. */
  readonly metrics?: ServiceMetrics | undefined;
}

export interface WebhookDispatcher {
  /** Runs the delivery loop until stop(). */
  start(): Promise<void>;
  /** Stops claiming and waits for attempts in flight. */
  stop(): Promise<void>;
  /** One pass without the loop (tests with a moved clock): fan out, then attempt everything due. */
  runOnce(): Promise<{ events: number; attempts: number }>;
}

/**
 * Outgoing webhook delivery (spec "Delivery rules"): fans outbox events out into deliveries and
 * attempts due deliveries under a lease. Runs beside graphile-worker in every worker process rather
 * than as its jobs: graphile-worker frees a job of a killed worker only after hours, while a lease
 * lets another worker retry a crashed attempt 45 s later. Any number of processes may run it.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { db, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const concurrency = options.concurrency ?? 16;
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? DELIVERY_TIMEOUT_MS + 30_000;
  const inFlight = new Set<Promise<void>>();
  const recordSuccess = createSuccessBatcher(db);
  let running = false;
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  const sleeper = new WakeableSleep();
  // Whether the outbox may hold new events: set by notifications and poll timeouts, not by finished
  // attempts, so a busy worker does not query the outbox once per delivery.
  let outboxSignalled = true;
  const wake = () => sleeper.wake();
  const fanOutAll = () => fanOutAllEvents(db, clock, batchSize);
  const attempt = (box: SecretBox, claimed: ClaimedDelivery) =>
    attemptAndRecord({ db, secretBox: box, send: options.send, clock, recordSuccess }, claimed, options);

  async function tick(): Promise<boolean> {
    let events = 0;
    if (outboxSignalled) {
      outboxSignalled = false;
      events = await fanOutAll();
    }
    const box = options.secretBox;
    const free = concurrency - inFlight.size;
    // Claim in batches (a quarter of the slots at least) rather than one query per finished attempt.
    if (!box || free <= 0 || (inFlight.size > 0 && free < Math.ceil(concurrency / 4))) return false;
    const claimed = await claimDueDeliveries(db, { now: clock(), limit: free, leaseMs });
    for (const delivery of claimed) {
      const p: Promise<void> = attempt(box, delivery).finally(() => {
        inFlight.delete(p);
        wake();
      });
      inFlight.add(p);
    }
    return events > 0 || (claimed.length > 0 && claimed.length === free);
  }

  async function run(): Promise<void> {
    while (running) {
      let busy = false;
      try {
        busy = await tick();
      } catch (error) {
        logger.warn({ err: error }, "webhook dispatch failed; retrying");
      }
      if (!busy && running)
        await sleeper.sleep(pollMs, () => {
          outboxSignalled = true;
        });
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      if (options.listen ?? true) {
        const listener = await db.sql.listen("webhook_events", () => {
          outboxSignalled = true;
          wake();
        });
        unlisten = () => listener.unlisten();
      }
      loop = run();
    },
    async stop() {
      running = false;
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
      await unlisten?.().catch(() => undefined);
    },
    async runOnce() {
      const events = await fanOutAll();
      const box = options.secretBox;
      let attempts = 0;
      if (!box) return { events, attempts };
      for (;;) {
        const claimed = await claimDueDeliveries(db, { now: clock(), limit: concurrency, leaseMs });
        if (claimed.length === 0) return { events, attempts };
        attempts += claimed.length;
        await Promise.all(claimed.map((c) => attempt(box, c)));
      }
    },
  };
}

type ClaimedDelivery = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

/** Fans the outbox out into deliveries, batch after batch, until a batch comes back short. */
async function fanOutAllEvents(db: Database, clock: () => Date, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await fanOutOutbox(db, { now: clock(), batchSize });
    total += n;
    if (n < batchSize) return total;
  }
}

/** One attempt, counted by result and logged; never rejects (an attempt not recorded is logged). */
function attemptAndRecord(
  deps: Parameters<typeof attemptDelivery>[0],
  claimed: ClaimedDelivery,
  { logger, metrics }: Pick<WebhookDispatcherOptions, "logger" | "metrics">,
): Promise<void> {
  return attemptDelivery(deps, claimed).then(
    (result) => {
      metrics?.webhookDeliveries.inc({ result });
      logger.debug({ deliveryId: claimed.id, result }, "webhook attempt");
    },
    (error: unknown) => {
      metrics?.webhookDeliveries.inc({ result: "not_recorded" });
      logger.warn({ err: error, deliveryId: claimed.id }, "webhook attempt not recorded");
    },
  );
}
