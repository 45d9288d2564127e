import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { createLogger } from "../../config/logger.js";
import { createSecretBox } from "../../core/webhooks/secret-box.js";
import { createWebhookSender } from "../../core/webhooks/send-webhook.js";
import { createWebhookDispatcher, type WebhookDispatcher } from "../../worker/webhook-dispatcher.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { type HttpsReceiver, startHttpsReceiver } from "./https-receiver.js";

/** A MASTER_KEY of this test run: secrets are sealed with it. */
export const MASTER_KEY = randomBytes(32).toString("base64url");

export interface WebhookHarness {
  readonly service: TestService;
  readonly receiver: HttpsReceiver;
  stop(): Promise<void>;
}

/**
 * The real service with webhooks configured as a test needs them: MASTER_KEY, loopback targets
 * allowed, and the receiver's self-signed certificate trusted through WEBHOOK_CA_FILE.
 */
export async function startWebhookHarness(options: { worker: boolean }): Promise<WebhookHarness> {
  const receiver = await startHttpsReceiver(tmpdir());
  const service = await startTestService({
    worker: options.worker,
    env: {
      MASTER_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_CA_FILE: receiver.caFile,
    },
  });
  return {
    service,
    receiver,
    async stop() {
      await service.stop();
      await receiver.close();
    },
  };
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
}

/** REST calls as one credential; `T` is what the test expects the JSON answer to be. */
export type Api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<ApiAnswer<T>>;

export function restApi(service: TestService, credential: { token: string } | { cookie: string }): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> =
      "token" in credential ? { authorization: `Bearer ${credential.token}` } : { cookie: credential.cookie };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${service.httpUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
}

export async function sessionApi(service: TestService, tenant: TestTenant): Promise<Api> {
  return restApi(service, { cookie: await createSessionCookie(service, tenant.tenantId) });
}

/** Stores a memory entry over REST (POST /api/v1/memory/entries), which writes memory.created. */
export async function storeEntry(service: TestService, token: string, title: string): Promise<string> {
  const res = await restApi(service, { token })<{ memoryId: string }>("POST", "/api/v1/memory/entries", {
    memory_type: "semantic",
    title,
    content: `${title}: a short fact for the webhook tests.`,
  });
  if (res.status >= 300) throw new Error(`store failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.memoryId;
}

/** A subscription as GET /api/webhooks answers it. */
export interface SubscriptionBody {
  id: string;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  consecutiveFailures: number;
  createdAt: string;
  deactivatedAt: string | null;
  previousSecretExpiresAt: string | null;
  secret?: string;
}

/** A delivery as GET /api/webhooks/{id}/deliveries answers it. */
export interface DeliveryBody {
  id: string;
  subscriptionId: string;
  event: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  occurredAt: string;
}

/** Creates a subscription over REST and returns its id and secret. */
export async function subscribe(
  api: Api,
  url: string,
  events: string[] = ["memory.created", "memory.updated", "webhook.test"],
): Promise<{ id: string; secret: string }> {
  const res = await api<{ id: string; secret: string }>("POST", "/api/webhooks", { url, events });
  if (res.status !== 200) throw new Error(`subscribe failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A clock the test moves forward instead of sleeping through the retry schedule. */
export interface ManualClock {
  readonly now: () => Date;
  advance(ms: number): void;
}

export function manualClock(): ManualClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** A dispatcher of the test's own (the service runs without worker), driven by runOnce(). */
export function testDispatcher(
  h: WebhookHarness,
  clock: ManualClock,
  options: { allowPrivateTargets?: boolean; timeoutMs?: number } = {},
): WebhookDispatcher & { close(): void } {
  const sender = createWebhookSender({
    allowPrivateTargets: options.allowPrivateTargets ?? true,
    extraCaCertificates: h.receiver.certificate,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const dispatcher = createWebhookDispatcher({
    db: h.service.storage.db,
    logger: createLogger("silent"),
    send: sender.send,
    secretBox: createSecretBox(MASTER_KEY),
    clock: clock.now,
    listen: false,
  });
  return { ...dispatcher, close: () => sender.close() };
}

export interface DeliveryRow {
  id: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
}

export async function deliveriesOf(
  h: Pick<WebhookHarness, "service">,
  subscriptionId: string,
): Promise<DeliveryRow[]> {
  return h.service.storage.db.sql<DeliveryRow[]>`
    select id, state, attempts, next_attempt_at, last_attempt_at, last_status, last_error
      from webhook_deliveries where subscription_id = ${subscriptionId} order by occurred_at, id`;
}
