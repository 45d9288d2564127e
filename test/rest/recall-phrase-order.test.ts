import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { recallHits, storeEntries } from "./rest-client.js";

// The built-in reranker's phrase feature (share of the query's adjacent word pairs a memory holds in
// order, at most one word apart; weighted since ADR 0640) over REST with the service's own models: of
// two memories with all the query's words, the one that says them as the query's phrase comes first,
// though the channels favour the other, which scatters them (phrase weighted 0, that one leads).

let service: TestService;
let tenant: TestTenant;
const ids: Record<string, string> = {};

const MEMORIES: Record<string, string> = {
  phrase: "Mother-to-child transmission was rare in clinics.",
  scattered: "The child of a mother feared transmission.",
  mother: "A mother asked when the clinics open again.",
  child: "Every child gets a booklet at the first visit.",
  transmission: "Transmission data are published every Friday.",
  canteen: "The canteen serves soup on Mondays.",
};

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ plan: "api" });
  Object.assign(ids, await storeEntries(service.httpUrl, tenant.token, MEMORIES, "Note"));
});

test.after.always(async () => {
  await service?.stop();
});

test("the memory that holds the query's words as its phrase leads one that scatters them", async (t) => {
  const hits = await recallHits<{ memoryId: string }>(service.httpUrl, tenant.token, {
    query: "mother child transmission",
    k: 10,
    hops: 0,
  });
  const order = hits.map((h) => Object.keys(ids).find((name) => ids[name] === h.memoryId));
  t.is(order[0], "phrase", order.join(" | "));
  t.true(order.indexOf("scattered") > 0, order.join(" | "));
});
