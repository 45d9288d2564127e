import test from "ava";
import { tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertMemory, insertTenant, readIndex, recount, supersede } from "./recall-fixtures.js";

let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});

test.after.always(async () => {
  await database?.drop();
});

const sortPostings = (rows: readonly { term: string; chunk_id: string; tf: number; doc_len: number }[]) =>
  rows.map((r) => `${r.term}|${r.chunk_id}|${r.tf}|${r.doc_len}`).sort();

async function assertIndexMatchesChunks(t: import("ava").ExecutionContext, tenantId: string) {
  const expected = await recount(database.db.sql, tenantId);
  const actual = await readIndex(database.db.sql, tenantId);
  t.deepEqual(sortPostings(actual.postings), sortPostings(expected.postings));
  t.deepEqual([...actual.df].sort(), [...expected.df].sort());
  t.is(actual.chunkCount, expected.chunkCount);
  t.is(actual.totalLength, expected.totalLength);
}

test("inserted chunks are indexed with tf, length and statistics, before and after compaction", async (t) => {
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
    { tf: number }[]
  >`select tf from bm25_postings where tenant_id = ${tenant} and term = 'hund' order by tf desc limit 1`;
  t.is(hund?.tf, 2);
});

test("superseding a version removes its chunks from index and statistics; other updates change nothing", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const old = await insertMemory(sql, tenant, ["Die Hauptstadt ist Bonn."]);
  await insertMemory(sql, tenant, ["Die Hauptstadt ist Berlin."]);
  await sql`update chunks set vector_stored = true where tenant_id = ${tenant}`;
  await assertIndexMatchesChunks(t, tenant);
  await supersede(sql, old.memoryId);
  await assertIndexMatchesChunks(t, tenant);
  const bonn = await sql`select 1 from bm25_postings where tenant_id = ${tenant} and term = 'bonn'`;
  t.is(bonn.length, 0);
  await sql`update chunks set valid_to = null where memory_id = ${old.memoryId}`;
  await assertIndexMatchesChunks(t, tenant);
  await sql`delete from chunks where memory_id = ${old.memoryId}`;
  await assertIndexMatchesChunks(t, tenant);
});

test("chunks written already closed (history imports) are not indexed", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Ein alter Stand"], {
    validFrom: new Date(Date.now() - 10_000),
    validTo: new Date(),
  });
  const rows = await sql`select 1 from bm25_postings where tenant_id = ${tenant}`;
  t.is(rows.length, 0);
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

test("the SQL impact and tf part agree with the TypeScript BM25", async (t) => {
  const rows = await database.db.sql<{ tf: number; dl: number; a: number; impact: number; part: number }[]>`
    select tf, dl, a, bm25_impact(tf, dl, a) as impact, bm25_tf_part(tf, dl, a) as part
    from unnest(array[1, 2, 7, 1], array[10, 54, 300, 1], array[42.5, 54, 12, 500]::float8[]) as x(tf, dl, a)`;
  for (const r of rows) {
    t.true(Math.abs(r.part - tfPart(r.tf, r.dl, r.a)) < 1e-12);
    // float4, as PostgreSQL prints it (shortest decimal that reads back as the same float4).
    t.true(Math.abs(r.impact - tfPart(r.tf, r.dl, r.a)) < 1e-6 * r.impact);
  }
});

test("re-keying moves impacts and term bounds to the current average length", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["kurz"]);
  await insertMemory(sql, tenant, [Array.from({ length: 80 }, (_, i) => `wort${i} lang`).join(" ")]);
  const [before] = await sql<
    { key: number }[]
  >`select key_avgdl as key from bm25_collection where tenant_id = ${tenant}`;
  t.is(before?.key, 1);
  const [result] = await sql<{ rekeyed: boolean }[]>`select bm25_rekey(${tenant}) as rekeyed`;
  t.true(result?.rekeyed);
  const [after] = await sql<
    { key: number }[]
  >`select key_avgdl as key from bm25_collection where tenant_id = ${tenant}`;
  t.is(after?.key, Math.fround((1 + 160) / 2));
  const wrong = await sql`
    select 1 from bm25_postings p, bm25_collection c
    where p.tenant_id = ${tenant} and c.tenant_id = p.tenant_id and p.impact <> bm25_impact(p.tf, p.doc_len, c.key_avgdl)`;
  t.is(wrong.length, 0);
  const bounds = await sql`
    select 1 from bm25_term_stats s where s.tenant_id = ${tenant}
      and s.max_impact <> (select max(impact) from bm25_postings p where p.tenant_id = s.tenant_id and p.term = s.term)`;
  t.is(bounds.length, 0);
  const [again] = await sql<{ rekeyed: boolean }[]>`select bm25_rekey(${tenant}) as rekeyed`;
  t.false(again?.rekeyed);
});

test("another tenant's postings and statistics are invisible under row-level security", async (t) => {
  const sql = database.db.sql;
  const mine = await insertTenant(sql);
  const other = await insertTenant(sql);
  await insertMemory(sql, other, ["Geheimnis des anderen Mandanten"]);
  const seen = await database.db.withTenant(mine, async (tx) => [
    ...(await tx`select 1 from bm25_postings`),
    ...(await tx`select 1 from bm25_term_stats`),
    ...(await tx`select 1 from bm25_stats_delta`),
    ...(await tx`select 1 from bm25_collection`),
  ]);
  t.is(seen.length, 0);
});
