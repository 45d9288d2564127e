import { type ChildProcess, spawn } from "node:child_process";
import test from "ava";
import { waitFor } from "../helpers/test-service.js";
import {
  deliveriesOf,
  MASTER_KEY,
  sessionApi,
  startWebhookHarness,
  storeEntry,
  subscribe,
  type WebhookHarness,
} from "./webhook-test-kit.js";

// Issue 17 "Durability": a worker killed with SIGKILL in the middle of deliveries loses nothing;
// after a restart every event is delivered at least once with the same delivery id, and two workers
// never send the same attempt at the same time. Serial: the tests share the receiver and workers
// serve every tenant. The workers are separate processes running the
// dispatcher as the worker composes it, with a 6 s lease (production: 45 s) so the test is short.

const LEASE_MS = 6000;
// Long enough for a loaded machine: a timed-out attempt would be retried only a minute later.
const TIMEOUT_MS = 5000;
let h: WebhookHarness;
const children: ChildProcess[] = [];

test.before(async () => {
  h = await startWebhookHarness({ worker: false });
});

test.after.always(async () => {
  for (const child of children) child.kill("SIGKILL");
  await h?.stop();
});

function startWorkerProcess(): ChildProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/webhooks/dispatcher-process.ts", String(LEASE_MS), String(TIMEOUT_MS), "8"],
    {
      env: {
        ...process.env,
        DATABASE_URL: h.service.database.url,
        MASTER_KEY,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOK_CA_FILE: h.receiver.caFile,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  return child;
}

test.serial(
  "kill -9 mid-delivery loses nothing: a restarted worker re-sends with the same delivery ids",
  async (t) => {
    const tenant = await h.service.createTenant({ plan: "team" });
    const api = await sessionApi(h.service, tenant);
    const { id, secret } = await subscribe(api, h.receiver.url, ["memory.created"]);
    h.receiver.secrets.push(secret);
    // Slow answers keep attempts in flight when the worker dies.
    h.receiver.answer = () => ({ status: 204, delayMs: 500 });
    const events = 24;
    for (let i = 0; i < events; i++) await storeEntry(h.service, tenant.token, `Durable ${i}`);

    const firstStarted = Date.now();
    const first = startWorkerProcess();
    await waitFor(() => (h.receiver.received.length >= 4 ? true : undefined), { what: "first requests" });
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const beforeRestart = await deliveriesOf(h, id);
    t.true(
      beforeRestart.some((d) => d.state === "pending"),
      "the kill left deliveries undone",
    );

    const second = startWorkerProcess();
    let rows = beforeRestart;
    const done = await waitFor(
      async () => {
        rows = await deliveriesOf(h, id);
        return rows.length === events && rows.every((r) => r.state === "delivered") ? rows : undefined;
      },
      { timeoutMs: 60_000, what: "all deliveries delivered after the restart" },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(rows.map((r) => [r.state, r.last_error]))}`);
    });
    second.kill("SIGTERM");

    const ids = new Set(done.map((d) => d.id));
    const received = h.receiver.received.filter((w) => ids.has(w.deliveryId));
    t.is(new Set(received.map((w) => w.deliveryId)).size, events, "every event arrived");
    const resent = received.filter((w, i) => received.findIndex((o) => o.deliveryId === w.deliveryId) !== i);
    t.true(resent.length > 0, "attempts in flight at the kill were sent again");
    // Worker 1 claimed after it started, so its leases ran at least until firstStarted + LEASE_MS.
    for (const again of resent) {
      t.true(
        again.receivedAt >= firstStarted + LEASE_MS,
        "re-sent only after the dead worker's lease expired",
      );
    }
    t.true(
      received.every((w) => w.signedWith >= 0),
      "every attempt, re-sent ones too, is signed",
    );
  },
);

test.serial("two workers on one backlog never send the same delivery twice", async (t) => {
  const tenant = await h.service.createTenant({ plan: "team" });
  const api = await sessionApi(h.service, tenant);
  const { id } = await subscribe(api, `${h.receiver.url}/shared`, ["memory.created"]);
  const events = 40;
  for (let i = 0; i < events; i++) await storeEntry(h.service, tenant.token, `Shared ${i}`);
  h.receiver.answer = () => ({ status: 204 });
  const workers = [startWorkerProcess(), startWorkerProcess()];
  await waitFor(
    async () => {
      const rows = await deliveriesOf(h, id);
      return rows.length === events && rows.every((r) => r.state === "delivered") ? true : undefined;
    },
    { timeoutMs: 60_000, what: "the backlog delivered" },
  );
  for (const w of workers) w.kill("SIGTERM");
  const received = h.receiver.received.filter((w) => w.path.endsWith("/shared"));
  t.is(received.length, events);
  t.is(new Set(received.map((w) => w.deliveryId)).size, events);
});
