import test from "ava";
import { type TestTenant, waitFor } from "../helpers/test-service.js";
import type { ReceivedWebhook } from "./https-receiver.js";
import {
  type Api,
  type DeliveryBody,
  restApi,
  type SubscriptionBody,
  sessionApi,
  startWebhookHarness,
  storeEntry,
  subscribe,
  type WebhookHarness,
} from "./webhook-test-kit.js";

// /api/webhooks end to end: the real service (REST, core, the in-process worker's dispatcher)
// delivering to a real HTTPS receiver whose self-signed certificate is trusted through
// WEBHOOK_CA_FILE; the receiver verifies every signature the way docs/webhooks.md tells receivers to.

let h: WebhookHarness;

test.before(async () => {
  h = await startWebhookHarness({ worker: true });
});

test.after.always(async () => {
  await h?.stop();
});

interface Body {
  event: string;
  tenantId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

const parse = (w: ReceivedWebhook) => JSON.parse(w.rawBody) as Body;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function receivedFor(tenant: TestTenant, event: string): Promise<ReceivedWebhook> {
  return waitFor(
    () => h.receiver.received.find((w) => w.event === event && parse(w).tenantId === tenant.tenantId),
    { what: `${event} for ${tenant.slug}` },
  );
}

async function teamTenant(): Promise<{ tenant: TestTenant; api: Api }> {
  const tenant = await h.service.createTenant({ plan: "team" });
  return { tenant, api: await sessionApi(h.service, tenant) };
}

test("memory.created arrives signed with the spec's headers and body, and is listed as delivered", async (t) => {
  const { tenant, api } = await teamTenant();
  const { id, secret } = await subscribe(api, h.receiver.url, ["memory.created"]);
  t.regex(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  h.receiver.secrets.push(secret);
  const memoryId = await storeEntry(h.service, tenant.token, "Webhook fact one");

  const got = await receivedFor(tenant, "memory.created");
  t.is(got.headers["content-type"], "application/json");
  t.is(got.headers["user-agent"], "service-Webhook/1.0");
  t.regex(got.deliveryId, UUID);
  t.regex(String(got.headers["x-service-signature"]), /^sha256=[0-9a-f]{64}$/);
  t.is(h.receiver.secrets[got.signedWith], secret, "signature verifies with the subscription's secret");
  const body = parse(got);
  t.deepEqual(Object.keys(body), ["event", "tenantId", "occurredAt", "data"]);
  t.is(body.event, "memory.created");
  t.regex(body.occurredAt, ISO_MS_UTC);
  t.deepEqual(body.data, { documentId: memoryId, title: "Webhook fact one", chunksWritten: 1 });

  const deliveries = await waitFor(async () => {
    const res = await api<DeliveryBody[]>("GET", `/api/webhooks/${id}/deliveries`);
    return res.body[0]?.status === "delivered" ? res.body : undefined;
  });
  t.is(deliveries.length, 1);
  t.like(deliveries[0], {
    id: got.deliveryId,
    subscriptionId: id,
    event: "memory.created",
    attempts: 1,
    lastResponseCode: 204,
    lastError: null,
    nextAttemptAt: null,
    occurredAt: body.occurredAt,
  });
});

test("memory.updated names the old and new version, the title and the validity", async (t) => {
  const { tenant, api } = await teamTenant();
  const { secret } = await subscribe(api, h.receiver.url, ["memory.updated"]);
  h.receiver.secrets.push(secret);
  const oldId = await storeEntry(h.service, tenant.token, "Office address");
  const res = await restApi(h.service, { token: tenant.token })<{ newMemoryId: string }>(
    "POST",
    `/api/v1/memory/${oldId}/versions`,
    { newTitle: "Office address", newContent: "We moved to Hafenstraße 3.", updateReason: "moved" },
  );
  t.is(res.status, 201, JSON.stringify(res.body));
  const got = await receivedFor(tenant, "memory.updated");
  t.true(got.signedWith >= 0);
  const body = parse(got);
  t.is(body.data.oldMemoryId, oldId);
  t.is(body.data.newMemoryId, res.body.newMemoryId);
  t.is(body.data.title, "Office address");
  t.is(body.data.updateReason, "moved");
  t.regex(String(body.data.validFrom), ISO_MS_UTC);
  t.is(body.data.oldValidTo, body.data.validFrom, "the old version ends where the new one starts");
  // Only the selected kind: the first store's memory.created is not sent to this subscription.
  t.false(
    h.receiver.received.some((w) => w.event === "memory.created" && parse(w).tenantId === tenant.tenantId),
  );
});

test("list, get and update never show the secret; delete stops deliveries", async (t) => {
  const { api } = await teamTenant();
  const { id } = await subscribe(api, h.receiver.url);
  const list = await api<SubscriptionBody[]>("GET", "/api/webhooks");
  t.is(list.status, 200);
  t.is(list.body.length, 1);
  t.like(list.body[0], {
    id,
    url: h.receiver.url,
    active: true,
    consecutiveFailures: 0,
    deactivatedAt: null,
  });
  t.false("secret" in (list.body[0] ?? {}));
  const updated = await api<SubscriptionBody>("PATCH", `/api/webhooks/${id}`, {
    events: ["memory.created"],
    description: "CRM sync",
  });
  t.is(updated.status, 200);
  t.deepEqual(updated.body.events, ["memory.created"]);
  t.is(updated.body.description, "CRM sync");
  t.is(updated.body.url, h.receiver.url);
  const got = await api<SubscriptionBody>("GET", `/api/webhooks/${id}`);
  t.deepEqual(got.body, updated.body);
  t.false(JSON.stringify(got.body).includes("whsec_"));
  t.is((await api("DELETE", `/api/webhooks/${id}`)).status, 200);
  t.is((await api("GET", `/api/webhooks/${id}`)).status, 404);
  t.deepEqual((await api<unknown[]>("GET", "/api/webhooks")).body, []);
});

test("the Test button sends a signed webhook.test to that subscription", async (t) => {
  const { tenant, api } = await teamTenant();
  const { id, secret } = await subscribe(api, h.receiver.url, ["memory.created"]);
  h.receiver.secrets.push(secret);
  const sent = await api<{ deliveryId: string }>("POST", `/api/webhooks/${id}/test`);
  t.is(sent.status, 200);
  const got = await receivedFor(tenant, "webhook.test");
  t.is(got.deliveryId, sent.body.deliveryId);
  t.is(h.receiver.secrets[got.signedWith], secret);
  t.deepEqual(parse(got).data.subscriptionId, id);
});

test("a rotated secret: both signatures for 24 h, the new one first", async (t) => {
  const { tenant, api } = await teamTenant();
  const { id, secret: oldSecret } = await subscribe(api, h.receiver.url, ["webhook.test"]);
  const rotated = await api<{ id: string; secret: string; previousSecretExpiresAt: string }>(
    "POST",
    `/api/webhooks/${id}/rotate-secret`,
  );
  t.is(rotated.status, 200);
  t.not(rotated.body.secret, oldSecret);
  const overlapMs = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
  t.true(overlapMs > 23.9 * 3_600_000 && overlapMs <= 24 * 3_600_000, `overlap ${overlapMs} ms`);
  const sent = await api<{ deliveryId: string }>("POST", `/api/webhooks/${id}/test`);
  const got = await waitFor(() => h.receiver.received.find((w) => w.deliveryId === sent.body.deliveryId), {
    what: `test delivery of ${tenant.slug}`,
  });
  const header = String(got.headers["x-service-signature"]);
  t.regex(header, /^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
  const { verifySignature } = await import("./https-receiver.js");
  t.true(verifySignature(got.rawBody, header, rotated.body.secret), "a receiver with the new secret accepts");
  t.true(verifySignature(got.rawBody, header, oldSecret), "a receiver still on the old secret accepts");
  t.false(verifySignature(got.rawBody, header, "whsec_someone-else"));
});

test("bad input answers 400 with a message naming the problem", async (t) => {
  const { api } = await teamTenant();
  const http = await api<{ error: string }>("POST", "/api/webhooks", {
    url: "http://example.com/hook",
    events: ["memory.created"],
  });
  t.is(http.status, 400);
  t.regex(http.body.error, /url: must start with https:\/\//);
  const kind = await api<{ error: string }>("POST", "/api/webhooks", {
    url: "https://example.com/hook",
    events: ["memory.deleted"],
  });
  t.is(kind.status, 400);
  t.regex(kind.body.error, /unknown event kind 'memory\.deleted'/);
  const long = await api<{ error: string }>("POST", "/api/webhooks", {
    url: `https://example.com/${"a".repeat(2048)}`,
    events: ["memory.created"],
  });
  t.is(long.status, 400);
  t.regex(long.body.error, /url: longer than 2048 characters/);
  const none = await api<{ error: string }>("POST", "/api/webhooks", {
    url: "https://example.com",
    events: [],
  });
  t.is(none.status, 400);
  t.deepEqual((await api<unknown[]>("GET", "/api/webhooks")).body, [], "nothing was created");
});

test("below the team plan every webhook route answers the 402 plan-gate body", async (t) => {
  const tenant = await h.service.createTenant({ plan: "pro" });
  const api = await sessionApi(h.service, tenant);
  for (const [method, path, body] of [
    ["GET", "/api/webhooks", undefined],
    ["POST", "/api/webhooks", { url: "https://example.com/h", events: ["memory.created"] }],
  ] as const) {
    const res = await api<Record<string, unknown>>(method, path, body);
    t.is(res.status, 402, `${method} ${path}`);
    t.like(res.body, {
      error: "plan_upgrade_required",
      feature: "webhooks",
      currentPlan: "pro",
      requiredPlans: ["team", "api"],
    });
  }
});

test("an admin-scope token may manage webhooks; a token without admin gets 403; other tenants see 404", async (t) => {
  const { tenant, api } = await teamTenant();
  const admin = restApi(h.service, { token: (await tenant.issueToken(["admin"])).token });
  const { id } = await subscribe(admin, h.receiver.url);
  t.is((await api("GET", `/api/webhooks/${id}`)).status, 200, "visible to the session too");
  const reader = restApi(h.service, { token: (await tenant.issueToken(["read", "write"])).token });
  t.is((await reader("GET", "/api/webhooks")).status, 403);
  const other = await teamTenant();
  t.is((await other.api("GET", `/api/webhooks/${id}`)).status, 404);
  t.is((await other.api("DELETE", `/api/webhooks/${id}`)).status, 404);
  t.is((await api<unknown[]>("GET", "/api/webhooks")).body.length, 1);
});
