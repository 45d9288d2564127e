import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { recallHits, storeEntries } from "./rest-client.js";

// The built-in reranker weighs the query's words by how rare they are in the workspace as well as in
// general language (ADR 0640), over REST with the service's own models: in a workspace about the
// canteen, "Kantine", in every memory here, tells the memories apart less than "Montag", which one
// memory holds. The reranker's own score (explain) puts the memory with "Montag" above one with
// "Kantine" only, and it leads; without the workspace's figures both scored 0.5.

let service: TestService;
let tenant: TestTenant;
const ids: Record<string, string> = {};

const MEMORIES: Record<string, string> = {
  kantine: "Die Kantine hat einen neuen Koch eingestellt.",
  montag: "Am Montag kommt der Techniker für die Heizung im Keller.",
  menu: "Die Kantine bietet mittags zwei vegetarische Gerichte an.",
  prices: "In der Kantine steigen die Preise für Kaffee.",
  hours: "Die Kantine schließt freitags schon um vierzehn Uhr.",
  cards: "Mit der Mitarbeiterkarte zahlt man in der Kantine bargeldlos.",
  survey: "Die Umfrage zur Kantine läuft noch bis Ende des Monats.",
};

interface Hit {
  readonly memoryId: string;
  readonly explanation?: { readonly rerankScore?: number };
}

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ plan: "api" });
  Object.assign(ids, await storeEntries(service.httpUrl, tenant.token, MEMORIES, "Aushang"));
});

test.after.always(async () => {
  await service?.stop();
});

test("a word in every memory of the workspace weighs less than one that sets a memory apart", async (t) => {
  const hits = await recallHits<Hit>(service.httpUrl, tenant.token, {
    query: "Kantine Montag",
    k: 10,
    hops: 0,
    explain: true,
  });
  const scoreOf = (name: string) => hits.find((h) => h.memoryId === ids[name])?.explanation?.rerankScore;
  const montag = scoreOf("montag");
  const kantine = scoreOf("kantine");
  t.truthy(montag !== undefined && kantine !== undefined, JSON.stringify(hits));
  t.true((montag ?? 0) > (kantine ?? 0), `Montag ${montag}, Kantine ${kantine}`);
  t.is(hits[0]?.memoryId, ids.montag);
});
