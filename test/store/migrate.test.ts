import test from "ava";
import { createDatabase } from "../../core/store/database.js";
import { type Migration, migrate, readMigrations } from "../../core/store/migrate.js";
import { prepareDatabase } from "../../core/store/prepare-database.js";
import { createEmptyDatabase } from "../helpers/test-database.js";

test("migrations apply once; a second run finds nothing to do", async (t) => {
  const empty = await createEmptyDatabase();
  const db = createDatabase({ url: empty.url, maxConnections: 2 });
  try {
    const first = await prepareDatabase(empty.url, db.sql);
    const all = await readMigrations();
    t.deepEqual(
      first.applied,
      all.map((m) => `${m.version}_${m.name}`),
    );
    const second = await prepareDatabase(empty.url, db.sql);
    t.deepEqual(second.applied, []);
    const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
    t.is(row?.n, all.length);
  } finally {
    await db.close();
    await empty.drop();
  }
});

test("two processes migrating at once: each migration is applied exactly once", async (t) => {
  const empty = await createEmptyDatabase();
  const a = createDatabase({ url: empty.url, maxConnections: 2 });
  const b = createDatabase({ url: empty.url, maxConnections: 2 });
  try {
    const [ra, rb] = await Promise.all([
      prepareDatabase(empty.url, a.sql),
      prepareDatabase(empty.url, b.sql),
    ]);
    const all = await readMigrations();
    t.is(ra.applied.length + rb.applied.length, all.length);
    const [row] = await a.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
    t.is(row?.n, all.length);
  } finally {
    await a.close();
    await b.close();
    await empty.drop();
  }
});

test("a migration changed after it was applied is refused", async (t) => {
  const empty = await createEmptyDatabase();
  const db = createDatabase({ url: empty.url, maxConnections: 2 });
  const one: Migration = {
    version: "9001",
    name: "probe",
    sql: "create table probe (id int)",
    checksum: "a",
  };
  try {
    await migrate(db.sql, [one]);
    const error = await t.throwsAsync(migrate(db.sql, [{ ...one, checksum: "b" }]));
    t.regex(error?.message ?? "", /9001_probe was changed/);
  } finally {
    await db.close();
    await empty.drop();
  }
});

test("a failing migration rolls back completely and reports its name", async (t) => {
  const empty = await createEmptyDatabase();
  const db = createDatabase({ url: empty.url, maxConnections: 2 });
  const bad: Migration = {
    version: "9002",
    name: "broken",
    sql: "create table half (id int); select * from no_such_table;",
    checksum: "c",
  };
  try {
    const error = await t.throwsAsync(migrate(db.sql, [bad]));
    t.regex(error?.message ?? "", /9002_broken failed/);
    const [half] = await db.sql`select to_regclass('half') as t`;
    t.is(half?.t, null);
    const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
    t.is(row?.n, 0);
  } finally {
    await db.close();
    await empty.drop();
  }
});

test("row-level security: a tenant transaction sees only its own tenant's rows", async (t) => {
  const empty = await createEmptyDatabase();
  const db = createDatabase({ url: empty.url, maxConnections: 2 });
  try {
    await prepareDatabase(empty.url, db.sql);
    const [a] = await db.sql<
      { id: string }[]
    >`insert into tenants (slug, name) values ('aa', 'A') returning id`;
    const [b] = await db.sql<
      { id: string }[]
    >`insert into tenants (slug, name) values ('bb', 'B') returning id`;
    for (const tenant of [a, b]) {
      await db.sql`insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256)
                   values (${tenant?.id ?? ""}, gen_random_uuid(), 'entry', 'x', 'y', '\\x00')`;
    }
    // Even a query without its own tenant filter cannot read the other tenant's rows.
    const seen = await db.withTenant(
      a?.id ?? "",
      (tx) => tx<{ tenant_id: string }[]>`select tenant_id from memories`,
    );
    t.deepEqual(
      seen.map((r) => r.tenant_id),
      [a?.id],
    );
    const write = db.withTenant(
      a?.id ?? "",
      (tx) => tx`insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256)
                 values (${b?.id ?? ""}, gen_random_uuid(), 'entry', 'x', 'y', '\\x00')`,
    );
    await t.throwsAsync(write, { message: /row-level security/ });
  } finally {
    await db.close();
    await empty.drop();
  }
});
