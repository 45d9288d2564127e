import type { LookupAddress } from "node:dns";
import { type AddressInfo, createServer } from "node:net";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { createSecretBox } from "../../core/webhooks/secret-box.js";
import { createWebhookSender } from "../../core/webhooks/send-webhook.js";
import { createWebhookDispatcher } from "../../worker/webhook-dispatcher.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { type Api, deliveriesOf, MASTER_KEY, manualClock, sessionApi } from "./webhook-test-kit.js";

// The outbound guard on webhook targets as an operator runs it (WEBHOOK_ALLOW_PRIVATE_TARGETS unset):
// a private target is refused when it is stored (400 naming the address, nothing stored), when the
// Test button is pressed, and again when a delivery connects — the reported case was
// https://[::ffff:7f00:1]:PORT, accepted and then connected to 127.0.0.1 by the delivery worker.

let service: TestService;
let listener: { port: number; connections: () => number; close(): Promise<void> };

test.before(async () => {
  service = await startTestService({ worker: false, env: { MASTER_KEY } });
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  listener = {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
});

test.after.always(async () => {
  await service?.stop();
  await listener?.close();
});

async function teamApi(): Promise<{ tenantId: string; api: Api }> {
  const tenant = await service.createTenant({ plan: "team" });
  return { tenantId: tenant.tenantId, api: await sessionApi(service, tenant) };
}

const storedUrls = async (tenantId: string) =>
  (
    await service.storage.db.sql<{ url: string }[]>`
      select url from webhook_subscriptions where tenant_id = ${tenantId}`
  ).map((row) => row.url);

test("POST /api/webhooks with a private target in any spelling answers 400 naming it; nothing is stored", async (t) => {
  const { tenantId, api } = await teamApi();
  const port = listener.port;
  for (const [host, named] of [
    ["[::ffff:7f00:1]", "::ffff:7f00:1 is IPv4-mapped 127.0.0.1 (loopback)"],
    ["[0:0:0:0:0:ffff:7f00:1]", "::ffff:7f00:1 is IPv4-mapped 127.0.0.1 (loopback)"],
    ["[::7f00:1]", "::7f00:1 is IPv4-compatible 127.0.0.1 (deprecated)"],
    ["[64:ff9b::7f00:1]", "64:ff9b::7f00:1 is NAT64 127.0.0.1 (loopback)"],
    ["[2002:7f00:1::1]", "2002:7f00:1::1 is 6to4 127.0.0.1 (loopback)"],
    ["[::1]", "::1 is loopback"],
    ["[fd00::1]", "fd00::1 is unique-local"],
    ["[fe80::1]", "fe80::1 is link-local"],
    ["2130706433", "127.0.0.1 is loopback"],
    ["0177.0.0.1", "127.0.0.1 is loopback"],
    ["0x7f.1", "127.0.0.1 is loopback"],
    ["127.1", "127.0.0.1 is loopback"],
    ["10.0.0.1", "10.0.0.1 is private (RFC 1918)"],
    ["169.254.169.254", "169.254.169.254 is link-local"],
    ["100.64.0.1", "100.64.0.1 is shared address space (CGNAT)"],
    ["0.0.0.0", "0.0.0.0 is unspecified (this network)"],
    ["224.0.0.1", "224.0.0.1 is multicast"],
  ] as const) {
    const res = await api<{ error: string }>("POST", "/api/webhooks", {
      url: `https://${host}:${port}/hook`,
      events: ["memory.created"],
    });
    t.is(res.status, 400, host);
    t.is(res.body.error, `url: ${named} (webhooks are only sent to public addresses)`, host);
  }
  // Dotted IPv6 forms do not reach the guard: protovalidate's URI rule refuses them first.
  for (const host of ["[::ffff:127.0.0.1]", "[::127.0.0.1]", "[64:ff9b::127.0.0.1]"]) {
    const dotted = await api<{ error: string }>("POST", "/api/webhooks", {
      url: `https://${host}:${port}/hook`,
      events: ["memory.created"],
    });
    t.is(dotted.status, 400, host);
    t.is(dotted.body.error, "url: must be a valid URI", host);
  }
  const named = await api<{ error: string }>("POST", "/api/webhooks", {
    url: `https://localhost:${port}/hook`,
    events: ["memory.created"],
  });
  t.is(named.status, 400);
  t.regex(named.body.error, /^url: localhost resolves to (127\.0\.0\.1|::1), which is loopback/);
  t.deepEqual((await api<unknown[]>("GET", "/api/webhooks")).body, []);
  t.deepEqual(await storedUrls(tenantId), [], "nothing was stored");
  t.is(listener.connections(), 0);
});

test("PATCH to a private target answers 400 and keeps the old url; a public IP literal is accepted", async (t) => {
  const { tenantId, api } = await teamApi();
  const created = await api<{ id: string }>("POST", "/api/webhooks", {
    url: "https://93.184.216.34/hook",
    events: ["memory.created"],
  });
  t.is(created.status, 200);
  const res = await api<{ error: string }>("PATCH", `/api/webhooks/${created.body.id}`, {
    url: `https://[::ffff:7f00:1]:${listener.port}/hook`,
  });
  t.is(res.status, 400);
  t.regex(res.body.error, /IPv4-mapped 127\.0\.0\.1 \(loopback\)/);
  t.deepEqual(await storedUrls(tenantId), ["https://93.184.216.34/hook"]);
});

test("the Test button refuses a subscription whose stored target is private (stored before the guard)", async (t) => {
  const { tenantId, api } = await teamApi();
  const created = await api<{ id: string }>("POST", "/api/webhooks", {
    url: "https://93.184.216.34/hook",
    events: ["webhook.test"],
  });
  await service.storage.db.sql`
    update webhook_subscriptions set url = ${`https://[::ffff:7f00:1]:${listener.port}/hook`}
     where tenant_id = ${tenantId}`;
  const res = await api<{ error: string }>("POST", `/api/webhooks/${created.body.id}/test`);
  t.is(res.status, 409);
  t.regex(res.body.error, /cannot be delivered to: ::ffff:7f00:1 is IPv4-mapped 127\.0\.0\.1 \(loopback\)/);
  t.is(listener.connections(), 0);
});

test("a delivery to a name that resolves to loopback at connect time fails; no TCP connection reaches the listener", async (t) => {
  const { tenantId, api } = await teamApi();
  const created = await api<{ id: string }>("POST", "/api/webhooks", {
    url: "https://93.184.216.34/hook",
    events: ["webhook.test"],
  });
  t.is((await api("POST", `/api/webhooks/${created.body.id}/test`)).status, 200);
  // The name resolved to a public address when stored; now it answers 127.0.0.1 (DNS rebinding).
  await service.storage.db.sql`
    update webhook_subscriptions set url = ${`https://rebound.test:${listener.port}/hook`}
     where tenant_id = ${tenantId}`;
  const resolve = async (hostname: string): Promise<LookupAddress[]> =>
    hostname === "rebound.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
  const sender = createWebhookSender({ allowPrivateTargets: false, resolve });
  const dispatcher = createWebhookDispatcher({
    db: service.storage.db,
    logger: createLogger("silent"),
    send: sender.send,
    secretBox: createSecretBox(MASTER_KEY),
    clock: manualClock().now,
    listen: false,
  });
  try {
    await dispatcher.runOnce();
  } finally {
    sender.close();
  }
  const [delivery] = await deliveriesOf({ service }, created.body.id);
  t.like(delivery, { state: "pending", attempts: 1, last_status: null });
  t.is(delivery?.last_error, "refused target: rebound.test resolves to 127.0.0.1, which is loopback");
  t.is(listener.connections(), 0, "no TCP connection reached the listener");
});
