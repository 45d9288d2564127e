import test from "ava";
import { createLogger } from "../../config/logger.js";
import { createBm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { B, B_FULL_UP_TO, lengthNormalisationB } from "../../core/recall/bm25/bm25-parameters.js";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { clientsFor, startRecallService, store, type TenantClients } from "./recall-test-kit.js";

/**
 * ADR 0590: above 5,000 chunks BM25's length normalisation weakens, so a long memory about a subject
 * is not outranked by short memories that restate one of its sentences (the synthetic corpus of
 * bench:growth, where b = 0.3 lost the paragraph to its fragments as the workspace grew).
 */
const LONG =
  "Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands und liegt an der Grenze zu " +
  "Österreich. Auf dem Gipfel der Zugspitze steht eine Wetterwarte, daneben ein Restaurant.";
const FRAGMENTS = [
  "Auf dem Gipfel der Zugspitze steht eine Wetterwarte.",
  "Auf dem Gipfel der Zugspitze steht eine kleine Wetterwarte.",
  "Auf dem Gipfel der Zugspitze steht eine alte Wetterwarte.",
];
const QUERY = "Was steht auf dem Gipfel der Zugspitze?";
const BM25_ONLY = { disableVector: true, disableGraph: true, disableRerank: true };

let service: TestService;
let tenant: TestTenant;
let clients: TenantClients;
let longId: string;
let fragmentIds: string[];

test.before(async () => {
  service = await startRecallService();
  tenant = await service.createTenant();
  clients = clientsFor(service, tenant);
  [longId = "", ...fragmentIds] = await store(clients, [
    { content: LONG },
    ...FRAGMENTS.map((content) => ({ content })),
  ]);
});

test.after.always(async () => {
  await service?.stop();
});

/** `count` one-chunk memories of unrelated short notes, written straight into the tables. */
async function addUnrelatedNotes(count: number): Promise<void> {
  await service.database.db.sql`
    with texts as (
      select n, gen_random_uuid() as id,
             'Notiz ' || n || ': heute war das Wetter mild, der Garten ruhig und der Hund müde.' as c
      from generate_series(1, ${count}) n
    ), m as (
      insert into memories (id, tenant_id, lineage_id, kind, title, content, content_sha256, status)
      select id, ${tenant.tenantId}, gen_random_uuid(), 'entry', 'Notiz', c, sha256(convert_to(c, 'UTF8')), 'indexed'
      from texts returning id
    )
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv, valid_from)
    select ${tenant.tenantId}, t.id, 0, t.c, 0, length(t.c), 0, to_tsvector('german', t.c), now()
    from texts t join m on m.id = t.id`;
}

async function bm25Order(): Promise<string[]> {
  const response = await clients.recall.recall({ query: QUERY, k: 10, stages: BM25_ONLY });
  return response.hits.map((h) => h.memoryId);
}

test.serial("b is 0.3 up to 5,000 chunks and shrinks continuously above", (t) => {
  t.is(lengthNormalisationB(10), B);
  t.is(lengthNormalisationB(B_FULL_UP_TO), B);
  t.true(Math.abs(lengthNormalisationB(B_FULL_UP_TO + 1) - B) < 1e-4);
  let previous = B;
  for (const chunks of [10_000, 100_000, 300_000, 10_000_000]) {
    const b = lengthNormalisationB(chunks);
    t.true(b < previous && b > 0);
    previous = b;
  }
});

test.serial(
  "in a small workspace length normalisation is as before: the short restatements come first",
  async (t) => {
    const order = await bm25Order();
    const longAt = order.indexOf(longId);
    for (const id of fragmentIds)
      t.true(order.indexOf(id) >= 0 && order.indexOf(id) < longAt, order.join(","));
  },
);

test.serial(
  "in a workspace past 5,000 chunks the long memory outranks short restatements of its sentence",
  async (t) => {
    await addUnrelatedNotes(20_000);
    const order = await bm25Order();
    const longAt = order.indexOf(longId);
    t.true(longAt >= 0);
    for (const id of fragmentIds)
      t.true(longAt < order.indexOf(id), `long memory at ${longAt}: ${order.join(",")}`);
  },
);

test.serial("past 5,000 chunks the SQL scorer ranks and scores as the in-process index does", async (t) => {
  const { db } = service.database;
  const cache = createBm25IndexCache({ db, logger: createLogger("silent"), sweepMs: 0, inlineBuildMax: 1e6 });
  try {
    const search = (index: typeof cache | undefined) =>
      withTenantSnapshot(db, tenant.tenantId, (tx) =>
        searchFulltext(tx, tenant.tenantId, { query: QUERY, depth: 10, index }),
      );
    const viaIndex = await search(cache);
    const viaSql = await search(undefined);
    t.true(viaIndex.path.startsWith("index") && viaSql.path === "sql");
    t.true(viaIndex.chunkCount > 5_000);
    t.deepEqual(
      viaSql.hits.map((h) => h.chunkId),
      viaIndex.hits.map((h) => h.chunkId),
    );
    for (const [i, h] of viaSql.hits.entries()) {
      t.true(Math.abs(h.score - (viaIndex.hits[i]?.score ?? 0)) < 1e-9);
    }
  } finally {
    cache.close();
  }
});
