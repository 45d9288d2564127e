import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { rest, storeEntries } from "./rest-client.js";

// Pseudo-relevance feedback over REST (ADR 0570): with RECALL_PRF on, the full-text channel takes
// terms the first pass's best memories share, searches again, and so finds a memory that holds none
// of the query's words but the vocabulary of those that answer it. The same memories and query in a
// service with the stage off (the default): the full-text channel does not find it at all.

interface Hit {
  memoryId: string;
  source: string;
  explanation?: { fulltextRank?: number; matchedTerms?: string[] };
}

interface Side {
  service: TestService;
  tenant: TestTenant;
  ids: Record<string, string>;
}

const MEMORIES: Record<string, string> = {
  plan: "Zeppelin-Migration: die Kundendatenbank zieht auf den neuen Cluster, Cutover am Freitag, Rollback vorbereitet.",
  retro:
    "Rückblick auf die Zeppelin-Migration: Cutover und Rollback der Kundendatenbank liefen ohne Ausfall.",
  target: "Checkliste für den Cutover: Rollback der Kundendatenbank vorher auf dem Cluster üben.",
  canteen: "Die Kantine öffnet am Montag wieder mit warmem Essen.",
  outing: "Der Betriebsausflug führt dieses Jahr an die Ostsee.",
  printer: "Der Drucker im dritten Stock braucht neuen Toner.",
};

const QUERY = "Wie lief die Zeppelin-Migration?";

async function start(prf: boolean): Promise<Side> {
  const service = await startTestService({
    models: testModels(),
    worker: false,
    env: { RECALL_PRF: prf ? "on" : "off" },
  });
  const tenant = await service.createTenant({ plan: "api" });
  const ids = await storeEntries(service.httpUrl, tenant.token, MEMORIES, "Notiz");
  return { service, tenant, ids };
}

async function recall(side: Side, query: string): Promise<Hit[]> {
  const res = await rest(side.service.httpUrl, "/api/memory/recall", {
    token: side.tenant.token,
    body: { query, k: 10, hops: 0, explain: true },
  });
  if (res.status !== 200) throw new Error(`recall: ${res.status} ${res.text}`);
  return (res.body as { hits: Hit[] }).hits;
}

let on: Side;
let off: Side;

test.before(async () => {
  [on, off] = await Promise.all([start(true), start(false)]);
});

test.after.always(async () => {
  await Promise.all([on?.service.stop(), off?.service.stop()]);
});

test("off: the full-text channel finds only the memories holding the query's words", async (t) => {
  const hits = await recall(off, QUERY);
  const target = hits.find((h) => h.memoryId === off.ids.target);
  t.is(target?.explanation?.fulltextRank, undefined);
  const found = hits.filter((h) => h.explanation?.fulltextRank !== undefined).map((h) => h.memoryId);
  t.deepEqual(found.sort(), [off.ids.plan, off.ids.retro].sort());
});

test("on: the second pass finds the memory sharing the answers' vocabulary, and ranks it above unrelated ones", async (t) => {
  const hits = await recall(on, QUERY);
  const rank = (name: string) => hits.findIndex((h) => h.memoryId === on.ids[name]);
  const target = hits[rank("target")];
  t.not(target?.explanation?.fulltextRank, undefined);
  t.true(target?.source === "fulltext" || target?.source === "hybrid");
  // Explain names the feedback terms it matched: vocabulary of the plan and the retrospective.
  t.true((target?.explanation?.matchedTerms ?? []).includes("cutov"));
  t.true(rank("plan") < rank("target") && rank("retro") < rank("target"));
  for (const other of ["canteen", "outing", "printer"])
    t.true(rank("target") < rank(other) || rank(other) < 0);
  // The memories holding the query's words keep their places at the top.
  t.deepEqual(
    hits
      .slice(0, 2)
      .map((h) => h.memoryId)
      .sort(),
    [on.ids.plan, on.ids.retro].sort(),
  );
});

test("on: a query nothing matches by its words stays without full-text hits", async (t) => {
  const hits = await recall(on, "Quantenphysik Vorlesung");
  t.true(hits.every((h) => h.explanation?.fulltextRank === undefined));
});
