import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { writeDictdFixture } from "../models/dictd-fixture.js";
import { recallHits, rest } from "./rest-client.js";

// Round-trip paraphrases end to end (issue 50 item 2, ADR 0650): the service reads the dictionaries
// LEXICON_DIR names (here ones the test writes in Debian's FreeDict layout), and a query word whose
// translation translates back into another word of its language ("Fluss" → river → Strom) finds the
// memory that uses that word — BM25 matched it through the paraphrase, as explain's matched terms show.

let service: TestService;
let directory: string;
let tenant: TestTenant;
const ids: Record<string, string> = {};

interface Hit {
  memoryId: string;
  explanation?: { matchedTerms?: string[] };
}

async function store(content: string): Promise<string> {
  const res = await rest(service.httpUrl, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: "semantic", title: "Notiz", content },
  });
  if (res.status !== 201) throw new Error(`store: ${res.status} ${res.text}`);
  return (res.body as { memoryId: string }).memoryId;
}

const recall = (query: string) =>
  recallHits<Hit>(service.httpUrl, tenant.token, { query, k: 10, hops: 0, explain: true });

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), "paraphrase-recall-"));
  await writeDictdFixture(directory, "freedict-deu-eng", [
    { headwords: ["fluss"], text: "Fluss /flʊs/ <masc, n, sg>\nriver <n>\n" },
    { headwords: ["strom"], text: "Strom /ʃtroːm/ <masc, n, sg>\ncurrent <n>, river <n>\n" },
  ]);
  await writeDictdFixture(directory, "freedict-eng-deu", [
    { headwords: ["river"], text: "river /ɹˈɪvə/\nFluss <masc>, Strom <masc>\n" },
  ]);
  service = await startTestService({
    worker: false,
    env: {
      LEXICON_DIR: directory,
      LEXICON_CACHE_DIR: join(directory, "cache"),
      THESAURUS_DE: "none",
      THESAURUS_EN: "none",
    },
  });
  tenant = await service.createTenant({ plan: "api" });
  ids.target = await store("Der Strom trennt die beiden Städte seit jeher.");
  ids.canteen = await store("Die Kantine öffnet am Montag wieder mit warmem Essen.");
  ids.outing = await store("Der Betriebsausflug führt dieses Jahr an die Ostsee.");
});

test.after.always(async () => {
  await service?.stop();
  await rm(directory, { recursive: true, force: true });
});

const matched = (hit: Hit | undefined) => hit?.explanation?.matchedTerms ?? [];

test.serial("a query word's round-trip paraphrase finds the memory that words it differently", async (t) => {
  const hits = await recall("Wo ist der Fluss?");
  t.is(hits[0]?.memoryId, ids.target);
  t.true(
    matched(hits[0]).some((term) => term.startsWith("strom")),
    `matched terms: ${matched(hits[0]).join(", ")}`,
  );
});

test.serial("the memories that share no word and no paraphrase match no term", async (t) => {
  const hits = await recall("Wo ist der Fluss?");
  for (const id of [ids.canteen, ids.outing])
    t.deepEqual(matched(hits.find((hit) => hit.memoryId === id)), []);
});
