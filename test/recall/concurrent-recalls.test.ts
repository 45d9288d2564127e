import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { clientsFor, startRecallService, store, type TenantClients } from "./recall-test-kit.js";

// Concurrent recalls share work inside the service (vector searches of one table run as one LanceDB
// query, core/vectors/search-coalesced.ts): each must still answer exactly what it answers alone.

let service: TestService;
let tenant: TestTenant;
let clients: TenantClients;

const TOPICS = [
  "Die Bibliothek der Universität öffnet um acht Uhr",
  "Der Zug nach Hamburg fährt von Gleis drei",
  "Unser Team trifft sich jeden Montag zum Planungsgespräch",
  "Die Heizung im zweiten Stock wird am Freitag gewartet",
  "Frau Keller betreut das Projekt Sonnenblume",
  "Das Rezept für Apfelkuchen braucht sechs Äpfel",
  "Der Vertrag mit dem Lieferanten läuft im März aus",
  "Im Garten blühen die Rosen seit Mai",
];

test.before(async () => {
  service = await startRecallService();
  tenant = await service.createTenant();
  clients = clientsFor(service, tenant);
  await store(
    clients,
    TOPICS.flatMap((topic, i) =>
      Array.from({ length: 5 }, (_, j) => ({ title: `Notiz ${i}-${j}`, content: `${topic}. Eintrag ${j}.` })),
    ),
  );
});

test.after.always(async () => {
  await service?.stop();
});

const QUERIES = [
  "Wann öffnet die Bibliothek?",
  "Zug Hamburg Gleis",
  "Planungsgespräch am Montag",
  "Wartung der Heizung",
  "Wer betreut Sonnenblume?",
  "Apfelkuchen Rezept",
  "Lieferantenvertrag",
  "Rosen im Garten",
  "library opening hours",
  "train to Hamburg",
];

const answer = async (query: string) => {
  const response = await clients.recall.recall({ query, k: 5, explain: true });
  return response.hits.map((h) => ({
    id: h.memoryId,
    score: h.score.toFixed(9),
    vectorRank: h.explanation?.vectorRank,
  }));
};

test("concurrent recalls answer exactly what each answers alone, vector channel included", async (t) => {
  const alone = [];
  for (const query of QUERIES) alone.push(await answer(query));
  for (let round = 0; round < 3; round++) {
    const together = await Promise.all(QUERIES.map(answer));
    t.deepEqual(together, alone, `round ${round}`);
  }
  // The vector channel took part (its ranks are set) and gave different queries different answers.
  t.true(alone.every((hits) => hits.some((h) => h.vectorRank !== undefined)));
  t.true(new Set(alone.map((hits) => hits[0]?.id)).size >= QUERIES.length - 2);
});
