import test from "ava";
import { lengthNormalisationB, tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertMemory, insertTenant, readIndex, recount, supersede } from "./recall-fixtures.js";

let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});

test.after.always(async () => {
  await database?.drop();
});

async function assertIndexMatchesChunks(t: import("ava").ExecutionContext, tenantId: string) {
  const expected = await recount(database.db.sql, tenantId);
  const actual = await readIndex(database.db.sql, tenantId);
  t.deepEqual([...actual.df].sort(), [...expected.df].sort());
  t.is(actual.chunkCount, expected.chunkCount);
  t.is(actual.totalLength, expected.totalLength);
}

test("inserted chunks enter the statistics (df, N, total length), before and after compaction", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, [
    "Der Hund läuft über die Wiese und der Hund bellt.",
    "Eine Katze schläft.",
  ]);
  await insertMemory(sql, tenant, ["Hunde und Katzen sind Haustiere."]);
  await assertIndexMatchesChunks(t, tenant);
  await sql`select bm25_compact(${tenant})`;
  const [pending] = await sql<
    { n: number }[]
  >`select count(*)::int as n from bm25_stats_delta where tenant_id = ${tenant}`;
  t.is(pending?.n, 0);
  await assertIndexMatchesChunks(t, tenant);
  const [hund] = await sql<
    { df: number }[]
  >`select df from bm25_term_stats where tenant_id = ${tenant} and term = 'hund'`;
  t.is(hund?.df, 2);
  // Migration 0250: no postings table any more — PostgreSQL keeps no per-(chunk, lexeme) rows.
  const [postings] = await sql<
    { n: number }[]
  >`select count(*)::int as n from pg_tables where tablename = 'bm25_postings'`;
  t.is(postings?.n, 0);
});

const pendingDeltas = async (tenantId: string) => {
  const [row] = await database.db.sql<
    { n: number }[]
  >`select count(*)::int as n from bm25_stats_delta where tenant_id = ${tenantId}`;
  return row?.n ?? -1;
};

test("a writer holding the tenant's compaction lock writes the compacted figures; a concurrent one appends deltas without waiting", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  // Migration 0260: a statement that gets the lock folds its change straight into bm25_term_stats.
  await insertMemory(sql, tenant, ["Der Hund läuft über die Wiese und der Hund bellt."]);
  t.is(await pendingDeltas(tenant), 0);
  await assertIndexMatchesChunks(t, tenant);

  // A transaction holds the lock (as a batch writer or an import does) while another writes: the
  // second appends deltas and commits at once — it does not wait for the first.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding: () => void = () => undefined;
  const holds = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const first = sql.begin(async (tx) => {
    await insertMemory(tx, tenant, ["Eine Katze schläft auf dem Sofa."]);
    holding();
    await held;
  });
  await holds;
  await insertMemory(sql, tenant, ["Der Hund und die Katze spielen."]);
  t.true((await pendingDeltas(tenant)) > 0, "the concurrent writer appended deltas");
  release();
  await first;
  await assertIndexMatchesChunks(t, tenant);

  // The next lock holder folds what is pending along with its own change; removals lower the figures
  // and take terms no chunk holds any more out of the vocabulary.
  const removed = await insertMemory(sql, tenant, ["Ein Papagei spricht."]);
  t.is(await pendingDeltas(tenant), 0);
  await assertIndexMatchesChunks(t, tenant);
  await supersede(sql, removed.memoryId);
  await assertIndexMatchesChunks(t, tenant);
  const [papagei] = await sql<
    { n: number }[]
  >`select count(*)::int as n from bm25_term_stats where tenant_id = ${tenant} and term = 'papagei'`;
  t.is(papagei?.n, 0);
  const [katze] = await sql<
    { df: number }[]
  >`select df from bm25_term_stats where tenant_id = ${tenant} and term = 'katz'`;
  t.is(katze?.df, 2);
});

test("superseding a version removes its chunks from the statistics; other updates change nothing", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const old = await insertMemory(sql, tenant, ["Die Hauptstadt ist Bonn."]);
  await insertMemory(sql, tenant, ["Die Hauptstadt ist Berlin."]);
  await sql`update chunks set vector_stored = true where tenant_id = ${tenant}`;
  await assertIndexMatchesChunks(t, tenant);
  await supersede(sql, old.memoryId);
  await assertIndexMatchesChunks(t, tenant);
  t.false((await readIndex(sql, tenant)).df.has("bonn"));
  await sql`update chunks set valid_to = null where memory_id = ${old.memoryId}`;
  await assertIndexMatchesChunks(t, tenant);
  await sql`delete from chunks where memory_id = ${old.memoryId}`;
  await assertIndexMatchesChunks(t, tenant);
});

test("chunks written already closed (history imports) do not count in the statistics", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Ein alter Stand"], {
    validFrom: new Date(Date.now() - 10_000),
    validTo: new Date(),
  });
  const index = await readIndex(sql, tenant);
  t.is(index.chunkCount, 0);
  t.is(index.df.size, 0);
  await assertIndexMatchesChunks(t, tenant);
});

test("concurrent ingests of one tenant neither deadlock nor lose counts", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const words = ["apfel", "birne", "kirsche", "pflaume", "traube", "melone", "banane", "zitrone"];
  // Each transaction writes several statements whose terms overlap in different orders.
  await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      sql.begin(async (tx) => {
        for (let s = 0; s < 3; s++) {
          const mine = words.map((_, j) => words[(i * 3 + s + j * ((i % 3) + 1)) % words.length]).slice(0, 5);
          await insertMemory(tx, tenant, [mine.join(" "), mine.reverse().join(" ")]);
        }
      }),
    ),
  );
  await assertIndexMatchesChunks(t, tenant);
  await sql`select bm25_compact(${tenant})`;
  await assertIndexMatchesChunks(t, tenant);
});

test("the SQL tf part agrees with the TypeScript BM25 at every workspace size's b", async (t) => {
  for (const chunks of [10, 5_000, 10_000, 300_000]) {
    const b = lengthNormalisationB(chunks);
    const rows = await database.db.sql<{ tf: number; dl: number; a: number; part: number }[]>`
      select tf, dl, a, bm25_tf_part(tf, dl, a, ${b}::float8) as part
      from unnest(array[1, 2, 7, 1], array[10, 54, 300, 1], array[42.5, 54, 12, 500]::float8[]) as x(tf, dl, a)`;
    for (const r of rows) t.true(Math.abs(r.part - tfPart(r.tf, r.dl, { avgdl: r.a, b })) < 1e-12);
  }
});

test("another tenant's statistics are invisible under row-level security", async (t) => {
  const sql = database.db.sql;
  const mine = await insertTenant(sql);
  const other = await insertTenant(sql);
  await insertMemory(sql, other, ["Geheimnis des anderen Mandanten"]);
  const seen = await database.db.withTenant(mine, async (tx) => [
    ...(await tx`select 1 from bm25_term_stats`),
    ...(await tx`select 1 from bm25_stats_delta`),
    ...(await tx`select 1 from bm25_collection`),
  ]);
  t.is(seen.length, 0);
});
