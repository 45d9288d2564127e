import { randomUUID } from "node:crypto";
import test from "ava";
import postgres from "postgres";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

// Deleting a memory version, an edge or a chunk (erasure, purge) must never scan a whole table of the
// instance: every foreign key that points at those tables needs an index leading with its columns.
// Before migration 0280 the edge ends had none, and erasing a 10-version lineage spent ≈ 90 ms
// scanning every tenant's edges (bench:lifecycle's erase).

let db: TestDatabase;
let sql: postgres.Sql;

test.before(async () => {
  db = await createTestDatabase();
  sql = postgres(db.url, { max: 2, onnotice: () => undefined });
});

test.after.always(async () => {
  await sql?.end({ timeout: 1 });
  await db?.drop();
});

test("every foreign key into memories, edges and chunks has an index on its columns", async (t) => {
  const unindexed = await sql<{ table: string; constraint: string }[]>`
    select c.conrelid::regclass::text as table, c.conname as constraint
    from pg_constraint c
    where c.contype = 'f'
      and c.confrelid in ('memories'::regclass, 'edges'::regclass, 'chunks'::regclass)
      and not exists (
        select 1 from pg_index i
        where i.indrelid = c.conrelid
          and (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] @> c.conkey
          and (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] <@ c.conkey)
    order by 1, 2`;
  t.deepEqual([...unindexed], []);
  const [keys] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_constraint
    where contype = 'f' and confrelid in ('memories'::regclass, 'edges'::regclass)`;
  t.true((keys?.n ?? 0) >= 4, "the check saw the edge and chunk keys");
});

test("an edge between memories of two tenants is refused by the database", async (t) => {
  const [a, b] = [randomUUID(), randomUUID()];
  for (const id of [a, b]) {
    await sql`insert into tenants (id, slug, name) values (${id}, ${`fk-${id.slice(0, 8)}`}, 'fk')`;
  }
  const memory = async (tenantId: string) => {
    const id = randomUUID();
    await sql`
      insert into memories (id, tenant_id, lineage_id, kind, title, content, content_sha256, status)
      values (${id}, ${tenantId}, ${id}, 'entry', 'x', 'x', sha256('x'), 'indexed')`;
    return id;
  };
  const [ma, ma2, mb] = [await memory(a), await memory(a), await memory(b)];
  await sql`insert into edges (tenant_id, from_id, to_id, rel_type) values (${a}, ${ma}, ${ma2}, 'RELATES_TO')`;
  const error = await t.throwsAsync(
    sql`insert into edges (tenant_id, from_id, to_id, rel_type) values (${a}, ${ma}, ${mb}, 'RELATES_TO')`,
  );
  t.regex(String(error?.message), /foreign key/);
});
