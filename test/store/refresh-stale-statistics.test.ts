import test from "ava";
import postgres from "postgres";
import { refreshStaleStatistics } from "../../core/store/refresh-stale-statistics.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

// core/store/refresh-stale-statistics.ts: a table whose rows outgrew its planner statistics is
// analysed (its row count and column statistics then match), a current one is left alone.

let db: TestDatabase;
let sql: postgres.Sql;

test.before(async () => {
  db = await createTestDatabase();
  sql = postgres(db.url, { max: 2, onnotice: () => undefined });
  await sql`create table growing (tenant_id uuid not null, n int not null)`;
});

test.after.always(async () => {
  await sql?.end({ timeout: 1 });
  await db?.drop();
});

const known = async () => {
  const [row] = await sql<{ reltuples: number; stats: number }[]>`
    select c.reltuples::float8 as reltuples,
           (select count(*)::int from pg_stats where tablename = 'growing') as stats
    from pg_class c where c.relname = 'growing'`;
  return row;
};

// The cumulative statistics reach pg_stat_user_tables when a backend flushes them (≤ 1 s in PG 15).
async function settle(): Promise<void> {
  await sql`select pg_stat_force_next_flush()`.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 1200));
}

test.serial("a table grown past its statistics is analysed; one that is current is not", async (t) => {
  t.is((await known())?.reltuples, -1, "never analysed");
  await sql`insert into growing select gen_random_uuid(), g from generate_series(1, 5000) g`;
  await settle();
  t.deepEqual(await refreshStaleStatistics(sql, { tables: ["growing"] }), ["growing"]);
  const after = await known();
  t.is(after?.reltuples, 5000);
  t.true((after?.stats ?? 0) >= 2, "column statistics exist");

  await settle();
  t.deepEqual(await refreshStaleStatistics(sql, { tables: ["growing"] }), [], "nothing changed since");
  // 500 more rows: below both 1,000 and 20 % of 5,000.
  await sql`insert into growing select gen_random_uuid(), g from generate_series(1, 500) g`;
  await settle();
  t.deepEqual(await refreshStaleStatistics(sql, { tables: ["growing"] }), []);
  // 1,000 more (1,500 changed > 20 % of 5,000): stale again.
  await sql`insert into growing select gen_random_uuid(), g from generate_series(1, 1000) g`;
  await settle();
  t.deepEqual(await refreshStaleStatistics(sql, { tables: ["growing"] }), ["growing"]);
  t.is((await known())?.reltuples, 6500);
});
