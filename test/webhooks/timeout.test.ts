import test from "ava";
import { DELIVERY_TIMEOUT_MS } from "../../core/webhooks/delivery-rules.js";
import {
  deliveriesOf,
  manualClock,
  sessionApi,
  startWebhookHarness,
  storeEntry,
  subscribe,
  testDispatcher,
  type WebhookHarness,
} from "./webhook-test-kit.js";

// Spec "Delivery rules" 1: success is a 2xx within 15 seconds. A receiver that takes 16 s is a failed
// attempt (the real 15 s timeout, so this file takes about 15 s), retried per schedule.

let h: WebhookHarness;

test.before(async () => {
  h = await startWebhookHarness({ worker: false });
});

test.after.always(async () => {
  await h?.stop();
});

test("a receiver answering after 16 s is a timeout, retried a minute later with the same delivery id", async (t) => {
  const clock = manualClock();
  const dispatcher = testDispatcher(h, clock);
  t.teardown(() => dispatcher.close());
  const tenant = await h.service.createTenant({ plan: "team" });
  const { id } = await subscribe(await sessionApi(h.service, tenant), h.receiver.url, ["memory.created"]);
  h.receiver.answer = () =>
    h.receiver.received.length === 1 ? { status: 200, delayMs: 16_000 } : { status: 200 };
  await storeEntry(h.service, tenant.token, "Slow receiver");

  const started = Date.now();
  await dispatcher.runOnce();
  const took = Date.now() - started;
  t.true(took >= DELIVERY_TIMEOUT_MS - 100 && took < 16_000, `gave up after ${took} ms`);
  const [failed] = await deliveriesOf(h, id);
  t.like(failed, { state: "pending", attempts: 1, last_status: null, last_error: "no answer within 15 s" });

  clock.advance(60_000);
  await dispatcher.runOnce();
  const [delivered] = await deliveriesOf(h, id);
  t.like(delivered, { state: "delivered", attempts: 2, last_status: 200 });
  t.is(h.receiver.received.length, 2);
  t.is(h.receiver.received[0]?.deliveryId, h.receiver.received[1]?.deliveryId);
});
