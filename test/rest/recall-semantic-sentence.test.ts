import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { recallHits, storeEntries } from "./rest-client.js";

// The English sentence encoder in the built-in reranker over REST, with the service's own models (ADR
// 0760): of FAQ entries that share words with the question, the one that says what it asks moves up
// ("Can my dog catch the virus?" / "Can pets such as cats and dogs be infected with the coronavirus?")
// past entries with as many of its words that ask something else ("Can I catch the bus …?", "How long
// does the virus survive …?"). Without the encoder (semanticSentenceWeight 0) both lead it. The entry
// sharing the most words ("Can I bring my dog to the office?") stays first in a workspace this small.

let service: TestService;
let tenant: TestTenant;
const ids: Record<string, string> = {};

const MEMORIES: Record<string, string> = {
  pets: "Can pets such as cats and dogs be infected with the coronavirus? A few animals have tested positive after close contact with sick owners.",
  office: "Can I bring my dog to the office? Only on Fridays, and only if your team agrees.",
  surfaces:
    "How long does the virus survive on surfaces? Up to three days on plastic and steel, less on paper.",
  bus: "Can I catch the bus at the main entrance? Line 12 stops right in front of the building.",
  canteen: "When does the canteen open? From half past eleven to two, with a salad bar on Mondays.",
  parking: "Where can I park my car? The garage under the building has spaces for visitors.",
};

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ plan: "api" });
  Object.assign(ids, await storeEntries(service.httpUrl, tenant.token, MEMORIES, "FAQ"));
});

test.after.always(async () => {
  await service?.stop();
});

test("the entry that says what the question asks moves past entries sharing as many of its words", async (t) => {
  const hits = await recallHits<{ memoryId: string }>(service.httpUrl, tenant.token, {
    query: "Can my dog catch the virus?",
    k: 5,
    hops: 0,
  });
  const order = hits.map((h) => Object.entries(ids).find(([, id]) => id === h.memoryId)?.[0]);
  const rank = (key: string) => order.indexOf(key);
  t.true(
    rank("pets") >= 0 && rank("pets") < rank("bus") && rank("pets") < rank("surfaces"),
    order.join(", "),
  );
});
