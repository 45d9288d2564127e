import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc } from "../mcp/post-mcp.js";

// Issue 15: a write retried with the same Idempotency-Key (REST) or idempotency_key (MCP) within
// 24 h answers the first result again and writes nothing.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService();
  tenant = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
});

async function storeEntry(
  body: object,
  key?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${service.httpUrl}/api/v1/memory/entries`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tenant.token}`,
      "content-type": "application/json",
      ...(key ? { "idempotency-key": key } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function countTitled(title: string): Promise<number> {
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId} and title = ${title}`;
  return row?.n ?? 0;
}

test("REST: the same Idempotency-Key replays the first answer and writes once", async (t) => {
  const entry = { memoryType: "semantic", title: "idem rest", content: "Paid the invoice 4711." };
  const first = await storeEntry(entry, "key-rest-1");
  t.is(first.status, 201);
  const again = await storeEntry(entry, "key-rest-1");
  t.is(again.status, 201);
  t.log(
    service.logLines
      .filter((l) => l.includes('"level":50'))
      .slice(-2)
      .join("\n")
      .slice(0, 1500),
  );
  t.deepEqual(again.body, first.body);
  t.is(await countTitled("idem rest"), 1);
});

test("REST: the same key with a different request is 409; a new key writes again", async (t) => {
  const entry = { memoryType: "semantic", title: "idem change", content: "Version one." };
  t.is((await storeEntry(entry, "key-rest-2")).status, 201);
  const changed = await storeEntry({ ...entry, content: "Version two." }, "key-rest-2");
  t.is(changed.status, 409);
  t.regex(String(changed.body.error), /different request/);
  t.is((await storeEntry({ ...entry, content: "Version two." }, "key-rest-3")).status, 201);
  t.is(await countTitled("idem change"), 2);
});

test("REST: a malformed key is 422 on /memory/entries naming idempotencyKey", async (t) => {
  const bad = await storeEntry({ memoryType: "semantic", title: "x", content: "y" }, "has space");
  t.is(bad.status, 422);
  t.regex(String(bad.body.error), /^idempotencyKey: /);
});

test("REST: concurrent requests with one key write once", async (t) => {
  const entry = { memoryType: "semantic", title: "idem race", content: "Only once please." };
  const answers = await Promise.all(Array.from({ length: 6 }, () => storeEntry(entry, "key-race")));
  t.true(
    answers.every((a) => a.status === 201 || a.status === 409),
    JSON.stringify(answers.map((a) => a.status)),
  );
  t.true(answers.some((a) => a.status === 201));
  t.is(await countTitled("idem race"), 1);
});

test("MCP: idempotency_key on service_store_memory replays the first result", async (t) => {
  const call = async () =>
    parseJsonAnswer(
      await postMcp(
        service.httpUrl,
        rpc("tools/call", {
          name: "service_store_memory",
          arguments: { title: "idem mcp", content: "Booked the room Eiche.", idempotency_key: "mcp-1" },
        }),
        { token: tenant.token },
      ),
    );
  const first = await call();
  const again = await call();
  t.is(first.error, undefined);
  t.deepEqual(again.result, first.result);
  t.is(await countTitled("idem mcp"), 1);
});
