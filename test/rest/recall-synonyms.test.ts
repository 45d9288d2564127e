import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { recallHits, rest } from "./rest-client.js";

// Paraphrase recall through a thesaurus (issue 50 item 2, ADR 0520): the service reads the thesaurus
// file THESAURUS_DE names (here one the test writes, in the OpenThesaurus text format Debian's
// openthesaurus-de-text installs), and a query word's synonym finds a memory that shares no word
// with the query — BM25 matched it through the synonym, as explain's matched terms show.

let service: TestService;
let directory: string;
let tenant: TestTenant;
const ids: Record<string, string> = {};

interface Hit {
  memoryId: string;
  source: string;
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
  directory = await mkdtemp(join(tmpdir(), "thesaurus-recall-"));
  const thesaurusFile = join(directory, "openthesaurus.txt");
  await writeFile(
    thesaurusFile,
    [
      "# OpenThesaurus - German Thesaurus in text format",
      "Impfung;Immunisierung;Vakzination (fachspr.)",
    ].join("\n"),
  );
  // The real models (built-in embedder, FreeDict lexicon), with the thesaurus from the configuration.
  service = await startTestService({
    worker: false,
    env: { THESAURUS_DE: thesaurusFile, THESAURUS_EN: "none" },
  });
  tenant = await service.createTenant({ plan: "api" });
  ids.target = await store("Die Immunisierung der Belegschaft beginnt am Montag beim Betriebsarzt.");
  ids.canteen = await store("Die Kantine öffnet am Montag wieder mit warmem Essen.");
  ids.outing = await store("Der Betriebsausflug führt dieses Jahr an die Ostsee.");
});

test.after.always(async () => {
  await service?.stop();
  await rm(directory, { recursive: true, force: true });
});

const matched = (hit: Hit | undefined) => hit?.explanation?.matchedTerms ?? [];

test.serial("a query word's synonym finds the memory that words it differently", async (t) => {
  const hits = await recall("Wann gibt es die Impfung?");
  t.is(hits[0]?.memoryId, ids.target);
  t.not(hits[0]?.source, "vector");
  t.true(
    matched(hits[0]).some((term) => term.startsWith("immunisier")),
    `matched terms: ${matched(hits[0]).join(", ")}`,
  );
});

test.serial("a word the thesaurus does not list gets no synonym", async (t) => {
  const hits = await recall("Wann gibt es die Spritze?");
  const target = hits.find((hit) => hit.memoryId === ids.target);
  t.false(matched(target).some((term) => term.startsWith("immunisier")));
});
