import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import test from "ava";
import { IndexStatus, MemoryKind } from "../../gen/memory/v1/memory_pb.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { clientsFor, errorField, startRecallService, store, type TenantClients } from "./recall-test-kit.js";

let service: TestService;
let tenant: TestTenant;
let clients: TenantClients;
let ids: string[];

const MEMORIES = [
  {
    title: "Urlaub",
    content: "Im Sommer fahren wir mit dem Zug nach Italien an den Gardasee und wandern in den Bergen.",
  },
  {
    title: "Server",
    content: "Der Datenbankserver läuft auf PostgreSQL 15; Backups werden jede Nacht um drei Uhr erstellt.",
  },
  {
    title: "Datenschutz",
    content: "Der Datenschutzbeauftragter prüft alle neuen Verträge mit Dienstleistern.",
  },
  {
    title: "Garden",
    content: "The apple trees in the garden need pruning before the spring blossoms arrive.",
  },
  {
    title: "Recipe",
    content: "Knead the dough for ten minutes, then let it rest in a warm place for an hour.",
  },
  { title: "Hund", content: "Unser Hund Bello bellt jeden Morgen den Briefträger an." },
];

test.before(async () => {
  service = await startRecallService();
  tenant = await service.createTenant();
  clients = clientsFor(service, tenant);
  ids = await store(clients, MEMORIES);
});

test.after.always(async () => {
  await service?.stop();
});

test("a German question finds the German memory, with the spec's hit fields", async (t) => {
  const response = await clients.recall.recall({
    query: "Wann werden die Backups vom Datenbankserver gemacht?",
  });
  const [first] = response.hits;
  t.is(first?.memoryId, ids[1]);
  t.is(first?.title, "Server");
  t.is(first?.content, MEMORIES[1]?.content);
  t.true(
    (first?.snippet.length ?? 0) > 0 && (first?.snippet.length ?? 0) <= (first?.content.length ?? 0) + 2,
  );
  t.true(["fulltext", "vector", "hybrid"].includes(first?.source ?? ""));
  t.is(first?.hops, 0);
  t.is(first?.kind, MemoryKind.ENTRY);
  t.true(first?.validFrom !== undefined && first.validTo === undefined);
  t.true(response.hits.length <= 5, "k defaults to 5");
  const scores = response.hits.map((h) => h.score);
  t.deepEqual(
    scores,
    [...scores].sort((a, b) => b - a),
  );
  t.true(response.latencyMs >= 0);
  t.true(response.timings.some((s) => s.stage === "fulltext"));
});

test("explain returns each stage's view of every hit, and nothing without it", async (t) => {
  const query = "Wann werden die Backups vom Datenbankserver gemacht?";
  const plain = await clients.recall.recall({ query });
  t.true(plain.hits.every((h) => h.explanation === undefined));
  const explained = await clients.recall.recall({ query, explain: true });
  t.deepEqual(
    explained.hits.map((h) => h.memoryId),
    plain.hits.map((h) => h.memoryId),
    "explaining does not change the ranking",
  );
  const first = explained.hits[0]?.explanation;
  t.is(first?.fulltextRank, 1);
  t.true((first?.fulltextScore ?? 0) > 0);
  t.true(first?.matchedTerms.includes("backups"), JSON.stringify(first?.matchedTerms));
  t.true(first?.vectorRank !== undefined && (first?.vectorDistance ?? 2) < 1);
  t.true((first?.fulltextShare ?? -1) > 0 && (first?.fulltextShare ?? 2) < 1);
  t.true((first?.fusedScore ?? 0) > 0);
  t.true(first?.rerankScore !== undefined);
  t.is(first?.hops, 0);
});

test("English text matches sensibly (inflected forms included)", async (t) => {
  const response = await clients.recall.recall({ query: "when should I prune the apple tree?", k: 3 });
  t.is(response.hits[0]?.memoryId, ids[3]);
  const dough = await clients.recall.recall({ query: "kneading dough", k: 3 });
  t.is(dough.hits[0]?.memoryId, ids[4]);
});

test("a German query finds an English memory and an English query a German one (cross-lingual)", async (t) => {
  const garden = await clients.recall.recall({ query: "Apfelbäume im Garten schneiden", k: 3 });
  t.true(
    garden.hits.some((h) => h.memoryId === ids[3]),
    JSON.stringify(garden.hits.map((h) => h.title)),
  );
  const dog = await clients.recall.recall({ query: "our dog barks at the postman", k: 3 });
  t.true(
    dog.hits.some((h) => h.memoryId === ids[5]),
    JSON.stringify(dog.hits.map((h) => h.title)),
  );
});

test("a compound is found from its parts written apart", async (t) => {
  const response = await clients.recall.recall({
    query: "Beauftragter für Datenschutz",
    k: 3,
    stages: { disableVector: true, disableGraph: true, disableRerank: true },
  });
  t.is(response.hits[0]?.memoryId, ids[2]);
  t.is(response.hits[0]?.source, "fulltext");
});

test("the snippet is trimmed around the match of a long memory", async (t) => {
  const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(20);
  const [long] = await store(clients, [
    { title: "Lang", content: `${filler}Der Schlüssel liegt unter der Fußmatte. ${filler}` },
  ]);
  const response = await clients.recall.recall({ query: "Wo liegt der Schlüssel?", k: 1 });
  const hit = response.hits[0];
  t.is(hit?.memoryId, long);
  t.true((hit?.snippet.length ?? 0) <= 330);
  t.regex(hit?.snippet ?? "", /Schlüssel liegt unter der Fußmatte/);
  t.regex(hit?.snippet ?? "", /^…/);
});

test("recall at a point in time sees the version valid then", async (t) => {
  const own = clientsFor(service, await service.createTenant());
  const [v1] = await store(own, [{ title: "Lieblingseditor", content: "Mein Lieblingseditor ist Vim." }]);
  const t1 = new Date();
  const v2 = (
    await own.graph.updateFact({
      targetId: v1 ?? "",
      newTitle: "Lieblingseditor",
      newContent: "Mein Lieblingseditor ist Emacs.",
    })
  ).newMemoryId;
  const t2 = new Date();
  const v3 = (
    await own.graph.updateFact({
      targetId: v2,
      newTitle: "Lieblingseditor",
      newContent: "Mein Lieblingseditor ist Helix.",
    })
  ).newMemoryId;
  const at = async (when: Date | undefined) =>
    (
      await own.recall.recall({
        query: "Lieblingseditor",
        k: 5,
        ...(when !== undefined ? { asOf: timestampFromDate(when) } : {}),
      })
    ).hits;
  const before = await at(new Date(t1.getTime() - 60_000));
  t.deepEqual(before, []);
  const first = await at(t1);
  t.deepEqual(
    first.map((h) => h.memoryId),
    [v1],
  );
  t.truthy(first[0]?.validTo, "a superseded version carries its valid_to");
  t.deepEqual(
    (await at(t2)).map((h) => h.memoryId),
    [v2],
  );
  const now = await at(undefined);
  t.deepEqual(
    now.map((h) => h.memoryId),
    [v3],
  );
  t.is(now[0]?.validTo, undefined);
  t.true(timestampDate(now[0]?.validFrom ?? timestampFromDate(new Date(0))) >= t2);
});

test("graph hops bring in linked memories with their hop count, and hops 0 does not", async (t) => {
  const own = clientsFor(service, await service.createTenant());
  const [project, person, unrelated] = await store(own, [
    { title: "Projekt Falke", content: "Projekt Falke baut eine neue Lagerhalle in Hamburg." },
    { title: "Anna", content: "Anna Schmidt ist Architektin." },
    { title: "Wetter", content: "Morgen regnet es." },
  ]);
  await own.graph.link({ fromId: person ?? "", toId: project ?? "", relType: "REFERENCES" });
  // Without the vector channel, which in a tenant this small returns every memory as some match.
  const stages = { disableVector: true };
  const withHops = await own.recall.recall({ query: "Lagerhalle Hamburg", k: 5, hops: 1, stages });
  t.is(withHops.hits[0]?.memoryId, project);
  const linked = withHops.hits.find((h) => h.memoryId === person);
  t.is(linked?.source, "graph");
  t.is(linked?.hops, 1);
  t.false(withHops.hits.some((h) => h.memoryId === unrelated && h.source === "graph"));
  const noHops = await own.recall.recall({ query: "Lagerhalle Hamburg", k: 5, hops: 0, stages });
  t.false(noHops.hits.some((h) => h.source === "graph"));
});

test("list_recent returns the newest memories first, k bounded, with their fields", async (t) => {
  const own = clientsFor(service, await service.createTenant());
  const stored = await store(
    own,
    Array.from({ length: 12 }, (_, i) => ({ title: `Notiz ${i}`, content: `Notiz Nummer ${i} über Dinge.` })),
  );
  const recent = await own.recall.listRecent({});
  t.is(recent.count, 10);
  t.is(recent.items.length, 10);
  t.deepEqual(
    recent.items.map((i) => i.id),
    stored.slice(2).reverse(),
  );
  const first = recent.items[0];
  t.is(first?.title, "Notiz 11");
  t.is(first?.status, IndexStatus.INDEXED);
  t.is(first?.kind, MemoryKind.ENTRY);
  t.is(first?.indexedChunks, 1);
  const times = recent.items.map((i) =>
    timestampDate(i.createdAt ?? timestampFromDate(new Date(0))).getTime(),
  );
  t.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  );
  t.is((await own.recall.listRecent({ k: 3 })).count, 3);
  t.is((await own.recall.listRecent({ k: 50 })).count, 12);
});

test("stats count memories, chunks and edges and report recall latency", async (t) => {
  const own = clientsFor(service, await service.createTenant());
  const [a, b] = await store(own, [
    { title: "Eins", content: "Erste Notiz." },
    { title: "Zwei", content: "Zweite Notiz." },
  ]);
  await own.graph.link({ fromId: a ?? "", toId: b ?? "", relType: "REFERENCES" });
  const before = await own.recall.getStats({});
  t.is(before.memories, 2n);
  t.is(before.chunks, 2n);
  t.is(before.edges, 2n, "a link stores the edge and its inverse");
  t.is(before.queriesLast24h, 0n);
  for (let i = 0; i < 3; i++) await own.recall.recall({ query: "Notiz" });
  const after = await own.recall.getStats({});
  t.is(after.queriesLast24h, 3n);
  t.true(after.p99Ms >= after.p50Ms);
  t.is(after.quota?.memoriesUsed, 2n);
});

test("out-of-bounds requests are refused naming the field, never with an internal error", async (t) => {
  const cases = [
    { call: clients.recall.recall({ query: "" }), field: "query" },
    { call: clients.recall.recall({ query: "   " }), field: "query" },
    { call: clients.recall.recall({ query: "x", k: 0 }), field: "k" },
    { call: clients.recall.recall({ query: "x", k: 26 }), field: "k" },
    { call: clients.recall.recall({ query: "x", hops: 4 }), field: "hops" },
    { call: clients.recall.recall({ query: "x", hops: -1 }), field: "hops" },
    { call: clients.recall.listRecent({ k: 51 }), field: "k" },
    { call: clients.recall.listRecent({ k: 0 }), field: "k" },
  ];
  for (const { call, field } of cases) {
    const error = errorField(await t.throwsAsync(call));
    t.is(error.code, Code.InvalidArgument);
    t.is(error.field, field);
    t.regex(error.message, new RegExp(`^${field}`));
  }
});

test("queries of punctuation, stop words only or odd characters answer normally", async (t) => {
  for (const query of [
    "?!",
    "der die das",
    "'; drop table chunks; --",
    "\\ ' \" & | ! :*",
    "ü".repeat(300),
  ]) {
    const response = await clients.recall.recall({ query, k: 3 });
    t.true(response.hits.length <= 3);
  }
});

test("one tenant's recall never returns another tenant's memories", async (t) => {
  const other = clientsFor(service, await service.createTenant());
  const response = await other.recall.recall({ query: "Datenbankserver Backups PostgreSQL", k: 25 });
  t.false(response.hits.some((h) => ids.includes(h.memoryId)));
  const at = await other.recall.recall({ query: "Datenbankserver", asOf: timestampFromDate(new Date()) });
  t.deepEqual(at.hits, []);
});
