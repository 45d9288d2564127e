import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { rest } from "./rest-client.js";

// Recall's BM25 from the derived in-process index (ADR 0230), end to end over REST: what a write
// acknowledged is found by the very next recall, what was superseded or erased never comes back (and
// erased text leaves the process's memory), workspaces stay apart, filters hold — with the index, not
// the SQL fallback, answering.

let service: TestService;
let url: string;
let a: TestTenant;
let b: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  url = service.httpUrl;
  a = await service.createTenant({ plan: "api" });
  b = await service.createTenant({ plan: "api" });
});

test.after.always(async () => {
  await service?.stop();
});

interface Hit {
  memoryId: string;
  source: string;
}

async function store(tenant: TestTenant, title: string, content: string, memoryType = "semantic") {
  const res = await rest(url, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: memoryType, title, content },
  });
  if (res.status !== 201) throw new Error(`store ${title}: ${res.status} ${res.text}`);
  return (res.body as { memoryId: string }).memoryId;
}

async function recall(tenant: TestTenant, body: Record<string, unknown>): Promise<string[]> {
  const res = await rest(url, "/api/memory/recall", {
    token: tenant.token,
    body: { k: 10, hops: 0, ...body },
  });
  if (res.status !== 200) throw new Error(`recall: ${res.status} ${res.text}`);
  return (res.body as { hits: Hit[] }).hits.map((h) => h.memoryId);
}

const index = () => {
  const cache = service.core.bm25Index;
  if (cache === undefined) throw new Error("the service runs without the in-process BM25 index");
  return cache;
};

test.serial("each stored memory is found by the very next recall, from the index", async (t) => {
  const before = index().stats();
  for (let i = 0; i < 6; i++) {
    const word = `Quarzlampe${"xyzvw".slice(0, (i % 5) + 1)}${i}`;
    const id = await store(a, `Notiz ${i}`, `Im Lager steht die ${word} neben dem Regal.`);
    const hits = await recall(a, { query: word });
    t.is(hits[0], id, `memory ${i} is the best hit right after it was stored`);
  }
  const after = index().stats();
  t.is(after.served - before.served, 6, "every recall was answered by the in-process index");
  t.is(after.fellBack, before.fellBack);
});

test.serial("a superseded version never comes back; the new one is found at once", async (t) => {
  const first = await store(a, "Büro", "Das Büro liegt in Bonnhausen am Fluss.");
  t.is((await recall(a, { query: "Bonnhausen" }))[0], first);
  const res = await rest(url, `/api/v1/memory/${first}/versions`, {
    token: a.token,
    body: { newTitle: "Büro", newContent: "Das Büro liegt in Kölnhausen am Fluss." },
  });
  t.is(res.status, 201, res.text);
  const second = (res.body as { newMemoryId: string }).newMemoryId;
  t.false((await recall(a, { query: "Bonnhausen" })).includes(first));
  t.is((await recall(a, { query: "Kölnhausen" }))[0], second);
});

test.serial("an erased memory is neither recalled nor kept in the index's memory", async (t) => {
  const id = await store(a, "Geheim", "Das Kennwort lautet Zitronenfaltergarten.");
  t.is((await recall(a, { query: "Zitronenfaltergarten" }))[0], id);
  const erased = await rest(url, `/api/v1/memories/${id}`, { token: a.token, method: "DELETE" });
  t.is(erased.status, 200, erased.text);
  t.false((await recall(a, { query: "Zitronenfaltergarten" })).includes(id));
  const [row] = await service.database.db.sql<
    { l: string }[]
  >`select u.lexeme as l from unnest(to_tsvector('german', 'Zitronenfaltergarten')) u`;
  t.is(
    index()
      .peek(a.tenantId)
      ?.postingsOf(row?.l ?? ""),
    0,
  );
});

test.serial("workspaces never see each other's memories", async (t) => {
  const inA = await store(a, "Fuchs A", "Der Schneefuchsbau liegt im Norden.");
  const inB = await store(b, "Fuchs B", "Der Schneefuchsbau liegt im Süden.");
  const fromA = await recall(a, { query: "Schneefuchsbau" });
  const fromB = await recall(b, { query: "Schneefuchsbau" });
  t.true(fromA.includes(inA));
  t.false(fromA.includes(inB));
  t.true(fromB.includes(inB));
  t.false(fromB.includes(inA));
});

test.serial("filters apply before the top k: memory types and kinds", async (t) => {
  const semantic: string[] = [];
  for (let i = 0; i < 12; i++)
    semantic.push(await store(a, `Regel ${i}`, `Die Torwartregel Nummer ${i} gilt.`));
  const episodic = await store(a, "Erlebnis", "Gestern galt die Torwartregel nicht.", "episodic");
  const before = index().stats();
  const onlyEpisodic = await recall(a, { query: "Torwartregel", memoryTypes: ["episodic"] });
  t.deepEqual(
    onlyEpisodic.filter((id) => id === episodic || semantic.includes(id)),
    [episodic],
  );
  const onlySemantic = await recall(a, { query: "Torwartregel", memoryTypes: ["semantic"], k: 20 });
  t.false(onlySemantic.includes(episodic));
  t.is(onlySemantic.filter((id) => semantic.includes(id)).length, 12);
  t.deepEqual(await recall(a, { query: "Torwartregel", kinds: ["document"] }), []);
  t.is(index().stats().fellBack, before.fellBack);
});
