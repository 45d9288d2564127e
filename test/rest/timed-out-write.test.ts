import test from "ava";
import postgres from "postgres";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { errorOf, rest } from "./rest-client.js";

// Issue 46: under a bulk load 16 batches answered 504 although all of them were stored. A write the
// gateway gives up on must answer with a key that resolves it: the 504 names an Idempotency-Key,
// and the same request retried with it returns the write's own result, never a second write.
// The write is held past the gateway's deadline (CORE_TIMEOUT_MS 3 s) by a lock on its table.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels(), env: { CORE_TIMEOUT_MS: "3000" } });
  tenant = await service.createTenant({ plan: "api" });
});

test.after.always(async () => {
  await service?.stop();
});

/** Holds a lock that blocks inserts into memories for `ms`; resolves once the lock is held. */
async function blockMemoryInserts(ms: number): Promise<{ released: Promise<void> }> {
  const admin = postgres(service.database.url, { max: 1, onnotice: () => undefined });
  let held!: () => void;
  const locked = new Promise<void>((resolve) => {
    held = resolve;
  });
  const released = admin
    .begin(async (tx) => {
      await tx`lock table memories in share mode`;
      held();
      await new Promise((resolve) => setTimeout(resolve, ms));
    })
    .then(() => admin.end({ timeout: 1 }));
  await locked;
  return { released };
}

async function memoriesTitled(title: string): Promise<number> {
  const admin = postgres(service.database.url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await admin<{ n: number }[]>`
      select count(*)::int as n from memories where tenant_id = ${tenant.tenantId} and title = ${title}`;
    return row?.n ?? 0;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

async function lateKeysAnswered(): Promise<number> {
  const admin = postgres(service.database.url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await admin<{ n: number }[]>`
      select count(*)::int as n from idempotency_keys
      where tenant_id = ${tenant.tenantId} and key like 'retry-%' and response is not null`;
    return row?.n ?? 0;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

test.serial(
  "a write that times out answers 504 with an Idempotency-Key; the retry with it returns the stored write",
  async (t) => {
    const body = { memory_type: "semantic", title: "Verzögert", content: "Der Vertrag endet im März." };
    const { released } = await blockMemoryInserts(6_000);
    const timedOut = await rest(service.httpUrl, "/api/v1/memory/entries", { token: tenant.token, body });
    t.is(timedOut.status, 504, timedOut.text);
    const key = timedOut.headers.get("idempotency-key") ?? "";
    t.regex(key, /^retry-[0-9a-f-]{36}$/);
    t.true(errorOf(timedOut).includes(`Idempotency-Key: ${key}`), errorOf(timedOut));

    // While the write still waits for the lock, the retry is told to come back (409), never run twice.
    const early = await rest(service.httpUrl, "/api/v1/memory/entries", {
      token: tenant.token,
      body,
      headers: { "idempotency-key": key },
    });
    t.is(early.status, 409, early.text);

    await released;
    let retried = early;
    for (let i = 0; i < 100 && retried.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      retried = await rest(service.httpUrl, "/api/v1/memory/entries", {
        token: tenant.token,
        body,
        headers: { "idempotency-key": key },
      });
    }
    // The first run's own answer (201, written), not a repeat's 200 "unchanged".
    t.is(retried.status, 201, retried.text);
    t.is((retried.body as { unchanged?: boolean }).unchanged ?? false, false);
    t.is(await memoriesTitled("Verzögert"), 1);
  },
);

test.serial(
  "a slow write that still answers in time answers as usual, and keeps its answer under its late key",
  async (t) => {
    // 1.5 s of lock: past the late claim (a third of the 3 s deadline) but inside the deadline, so
    // the write answers 201 itself; its answer is kept under the gateway's key all the same.
    const body = { memory_type: "semantic", title: "Knapp", content: "Die Frist beträgt drei Monate." };
    const keptBefore = await lateKeysAnswered();
    const { released } = await blockMemoryInserts(1_500);
    const answered = await rest(service.httpUrl, "/api/v1/memory/entries", { token: tenant.token, body });
    await released;
    t.is(answered.status, 201, answered.text);
    t.is(answered.headers.get("idempotency-key"), null);
    t.is(await memoriesTitled("Knapp"), 1);
    t.is(await lateKeysAnswered(), keptBefore + 1);
  },
);

test.serial("a write that answers in time leaves no key behind and its answer names none", async (t) => {
  const admin = postgres(service.database.url, { max: 1, onnotice: () => undefined });
  try {
    const before = await admin<{ n: number }[]>`
      select count(*)::int as n from idempotency_keys where tenant_id = ${tenant.tenantId}`;
    const res = await rest(service.httpUrl, "/api/v1/memory/entries", {
      token: tenant.token,
      body: { memory_type: "semantic", title: "Schnell", content: "Sofort gespeichert." },
    });
    t.is(res.status, 201, res.text);
    t.is(res.headers.get("idempotency-key"), null);
    const after = await admin<{ n: number }[]>`
      select count(*)::int as n from idempotency_keys where tenant_id = ${tenant.tenantId}`;
    t.is(after[0]?.n, before[0]?.n);
  } finally {
    await admin.end({ timeout: 1 });
  }
});
