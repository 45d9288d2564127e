import test from "ava";
import { RETRY_DELAYS_MS } from "../../core/webhooks/delivery-rules.js";
import type { TestTenant } from "../helpers/test-service.js";
import {
  type Api,
  type DeliveryBody,
  deliveriesOf,
  type ManualClock,
  manualClock,
  type SubscriptionBody,
  sessionApi,
  startWebhookHarness,
  storeEntry,
  subscribe,
  testDispatcher,
  type WebhookHarness,
} from "./webhook-test-kit.js";

// Spec "Delivery rules" and "States and transitions" (webhook rows) with time under the test's
// control: the service runs without its worker, and a dispatcher of the test's own runs on a clock
// the test moves forward (no sleeping through 14 hours of retries). Serial: one clock, one receiver.

let h: WebhookHarness;
let clock: ManualClock;
let dispatcher: ReturnType<typeof testDispatcher>;

test.before(async () => {
  h = await startWebhookHarness({ worker: false });
  clock = manualClock();
  dispatcher = testDispatcher(h, clock);
});

test.after.always(async () => {
  dispatcher?.close();
  await h?.stop();
});

async function teamTenant(): Promise<{ tenant: TestTenant; api: Api }> {
  const tenant = await h.service.createTenant({ plan: "team" });
  return { tenant, api: await sessionApi(h.service, tenant) };
}

const receivedFor = (subscriptionUrl: string) =>
  h.receiver.received.filter((w) => subscriptionUrl.endsWith(w.path));

test.serial("receiver down: six attempts at 0, 1 min, 5 min, 30 min, 2 h, 12 h, then dead", async (t) => {
  const { tenant, api } = await teamTenant();
  const url = `${h.receiver.url}/down`;
  const { id } = await subscribe(api, url, ["memory.created"]);
  h.receiver.answer = (w) => ({ status: w.path.endsWith("/down") ? 503 : 204 });
  await storeEntry(h.service, tenant.token, "Retry me");

  const attemptTimes: number[] = [];
  const run = async () => {
    const before = receivedFor(url).length;
    const at = clock.now().getTime();
    await dispatcher.runOnce();
    const sent = receivedFor(url).length - before;
    if (sent > 0) attemptTimes.push(at);
    return sent;
  };
  t.is(await run(), 1, "first attempt at once");
  for (const delay of RETRY_DELAYS_MS.slice(1)) {
    clock.advance(delay - 1000);
    t.is(await run(), 0, `not before ${delay / 1000} s`);
    clock.advance(1000);
    t.is(await run(), 1, `retried ${delay / 1000} s after the previous failure`);
  }
  clock.advance(24 * 3_600_000);
  t.is(await run(), 0, "no seventh attempt");

  const gaps = attemptTimes.slice(1).map((time, i) => time - (attemptTimes[i] ?? 0));
  gaps.forEach((gap, i) => {
    const delay = RETRY_DELAYS_MS[i + 1] ?? 0;
    t.true(gap >= delay && gap < delay + 2000, `gap ${i + 1}: ${gap} ms for ${delay} ms`);
  });
  const ids = new Set(receivedFor(url).map((w) => w.deliveryId));
  t.is(ids.size, 1, "every retry carries the same X-service-Delivery");
  t.true(
    receivedFor(url).every((w) => w.rawBody === receivedFor(url)[0]?.rawBody),
    "byte-identical bodies",
  );

  const [listed] = (await api<DeliveryBody[]>("GET", `/api/webhooks/${id}/deliveries`)).body;
  t.like(listed, { status: "dead", attempts: 6, lastResponseCode: 503, nextAttemptAt: null });
  t.is(listed?.lastError, "answered 503");
  const sub = (await api<SubscriptionBody>("GET", `/api/webhooks/${id}`)).body;
  t.like(sub, { active: true, consecutiveFailures: 6 }, "six failures do not deactivate");
});

test.serial(
  "20 consecutive failures deactivate; events wait; reactivation resumes and delivers them",
  async (t) => {
    const { tenant, api } = await teamTenant();
    const url = `${h.receiver.url}/flaky`;
    const { id } = await subscribe(api, url, ["memory.created"]);
    let up = false;
    h.receiver.answer = (w) => ({ status: w.path.endsWith("/flaky") && !up ? 500 : 204 });
    for (let i = 0; i < 20; i++) await storeEntry(h.service, tenant.token, `Fact ${i}`);

    await dispatcher.runOnce();
    t.is(receivedFor(url).length, 20);
    const sub = (await api<SubscriptionBody>("GET", `/api/webhooks/${id}`)).body;
    t.false(sub.active);
    t.is(sub.consecutiveFailures, 20);
    t.truthy(sub.deactivatedAt, "visible in the dashboard");
    const [audit] = await h.service.storage.db.sql<
      { action: string; details: { consecutiveFailures: number } }[]
    >`
    select action, details from audit_log where tenant_id = ${tenant.tenantId} and target = ${id}
       and action = 'webhook.deactivated'`;
    t.is(audit?.details.consecutiveFailures, 20, "audit entry");

    clock.advance(RETRY_DELAYS_MS[1] ?? 0);
    await storeEntry(h.service, tenant.token, "While deactivated");
    await dispatcher.runOnce();
    t.is(receivedFor(url).length, 20, "nothing is sent while deactivated");
    t.is((await deliveriesOf(h, id)).length, 21, "the new event still got its delivery");
    const refused = await api<{ error: string }>("POST", `/api/webhooks/${id}/test`);
    t.is(refused.status, 409);

    up = true;
    const reactivated = await api<SubscriptionBody>("POST", `/api/webhooks/${id}/reactivate`);
    t.like(reactivated.body, { active: true, consecutiveFailures: 0, deactivatedAt: null });
    await dispatcher.runOnce();
    const rows = await deliveriesOf(h, id);
    t.true(
      rows.every((r) => r.state === "delivered"),
      rows.map((r) => r.state).join(),
    );
    t.is(receivedFor(url).length, 41, "20 retried + the one held back");
    t.is(new Set(receivedFor(url).map((w) => w.deliveryId)).size, 21, "retries reuse their delivery ids");
  },
);

test.serial("a 3xx answer is a failed attempt: the redirect is not followed", async (t) => {
  const { tenant, api } = await teamTenant();
  const url = `${h.receiver.url}/moved`;
  const { id } = await subscribe(api, url, ["memory.created"]);
  h.receiver.answer = (w) =>
    w.path.endsWith("/moved")
      ? { status: 302, headers: { location: `${h.receiver.url}/elsewhere` } }
      : { status: 204 };
  await storeEntry(h.service, tenant.token, "Redirected");
  await dispatcher.runOnce();
  const [row] = await deliveriesOf(h, id);
  t.like(row, { state: "pending", attempts: 1, last_status: 302, last_error: "redirect not followed" });
  t.false(h.receiver.received.some((w) => w.path.endsWith("/elsewhere")));
  t.is(row?.next_attempt_at?.getTime(), (row?.last_attempt_at?.getTime() ?? 0) + 60_000);
});

test.serial("the SSRF guard refuses loopback targets unless configuration allows them", async (t) => {
  const { tenant, api } = await teamTenant();
  const literal = await subscribe(api, `${h.receiver.url}/guarded`, ["memory.created"]);
  const named = await subscribe(api, `${h.receiver.url.replace("127.0.0.1", "localhost")}/guarded-name`, [
    "memory.created",
  ]);
  h.receiver.answer = () => ({ status: 204 });
  const guarded = testDispatcher(h, clock, { allowPrivateTargets: false });
  try {
    await storeEntry(h.service, tenant.token, "Internal");
    await guarded.runOnce();
  } finally {
    guarded.close();
  }
  t.false(
    h.receiver.received.some((w) => w.path.includes("/guarded")),
    "nothing reached the receiver",
  );
  const [byLiteral] = await deliveriesOf(h, literal.id);
  t.like(byLiteral, { state: "pending", attempts: 1, last_status: null });
  t.is(byLiteral?.last_error, "refused target: 127.0.0.1 is loopback");
  const [byName] = await deliveriesOf(h, named.id);
  t.regex(
    byName?.last_error ?? "",
    /^refused target: localhost resolves to (127\.0\.0\.1|::1), which is loopback$/,
  );

  // The configured dispatcher (loopback allowed, as in tests) delivers the same deliveries.
  clock.advance(60_000);
  await dispatcher.runOnce();
  t.is((await deliveriesOf(h, literal.id))[0]?.state, "delivered");
  t.is((await deliveriesOf(h, named.id))[0]?.state, "delivered");
});
