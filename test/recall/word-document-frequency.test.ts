import test from "ava";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertMemory, insertTenant } from "./recall-fixtures.js";

// The full-text channel reports how many of the tenant's current chunks hold each query word, analysed
// alone by the chunks' own analyzer (the built-in reranker's workspace rarity, ADR 0640): inflected and
// capitalised forms count as their stem, a stop word has no figure, a word no chunk holds counts 0, and
// another tenant's chunks do not count.

let database: TestDatabase;
let tenant: string;

test.before(async () => {
  database = await createTestDatabase();
  tenant = await insertTenant(database.db.sql);
  const other = await insertTenant(database.db.sql);
  await insertMemory(database.db.sql, tenant, ["Das Haus am See ist alt."]);
  await insertMemory(database.db.sql, tenant, ["Die Häuser der Stadt sind neu."]);
  await insertMemory(database.db.sql, tenant, ["Der See friert im Winter zu."]);
  await insertMemory(database.db.sql, other, ["Ein Haus, noch ein Haus, ein Winter am See."]);
});

test.after.always(async () => {
  await database?.drop();
});

test("each query word's document frequency in the tenant's current chunks", async (t) => {
  const found = await withTenantSnapshot(database.db, tenant, (tx) =>
    searchFulltext(tx, tenant, { query: "Wann ist das HAUS am See im Sommer?", depth: 10 }),
  );
  t.is(found.chunkCount, 3);
  const frequencies = Object.fromEntries(found.wordDocumentFrequency ?? []);
  // "wann" is no stop word of the analyzer (the reranker drops it by its own list).
  t.deepEqual(frequencies, { haus: 2, see: 2, sommer: 0, wann: 0 });
});
