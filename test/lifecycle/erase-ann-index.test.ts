import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import { vectorTableName } from "../../core/vectors/vector-table-name.js";
import { graphClient, storeMemory, testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { cookieHeader, freshIp, signInWithWorkspace } from "../tenancy/sign-in-helper.js";
import { filesContaining, fillerBundle, rowsInAnyVersion } from "./lifecycle-kit.js";

// Issue 20, "LanceDB keeps old table versions — erased vectors must not survive in them", for a
// table with an ANN index (HNSW-SQ, built by the worker's maintenance above ANN_INDEX_MIN_ROWS): a
// lineage is indexed into it, erased through DELETE /api/v1/memories/{id}, the worker purges; then
// every file under the table's directory (data, deletion files, manifests, transactions, index
// files of every version left) is searched for the erased ids and for the exact bytes of an erased
// vector, and the index must cover exactly the live rows.

const FILLER = 1_200;

let service: TestService;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    captureLogs: true,
    env: { VECTOR_PURGE_DELAY_MS: "0", TRUST_PROXY: "true" },
  });
});

test.after.always(async () => {
  await service?.stop();
});

/** Files under `dir` that contain `needle` (exact bytes). */
async function filesWithBytes(dir: string, needle: Buffer): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if ((await readFile(full)).includes(needle)) found.push(full);
    }
  };
  await walk(dir);
  return found;
}

test("erased vectors leave no trace in an HNSW-indexed table: no file holds their ids or bytes, the index covers only live rows", async (t) => {
  const owner = await signInWithWorkspace(service, "api");
  const imported = await fetch(`${service.httpUrl}/api/tenant/import`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": freshIp(),
      ...cookieHeader(owner.session),
    },
    body: fillerBundle(FILLER),
  });
  t.is(imported.status, 200, await imported.clone().text());
  const sql = service.storage.db.sql;
  await sql`update tenants set limits_override = ${sql.json({ requestsPerMinutePerToken: 100_000 })}
            where id = ${owner.tenantId}`;
  const { token } = await issueApiToken(sql, {
    tenantId: owner.tenantId,
    name: "admin",
    scopes: ["read", "write", "admin"],
  });
  const marker = `zqh${randomUUID().slice(0, 8)}`;
  const v1 = await storeMemory(
    service,
    { token },
    { title: `Tresor ${marker}`, content: `${marker} öffnet mit 4711.` },
  );
  const v2 = (
    await graphClient(service, token).updateFact({
      targetId: v1,
      newTitle: `Tresor ${marker}`,
      newContent: `${marker} öffnet jetzt mit 0815.`,
    })
  ).newMemoryId;
  const versions = [v1, v2];
  const vectors = service.storage.vectors;
  const [space = ""] = await vectors.spaces(owner.tenantId);
  const table = await vectors.openTable(owner.tenantId, space);
  if (!table) throw new Error("no vector table");
  await waitFor(
    async () => ((await table.countRows(`memory_id IN ('${v1}', '${v2}')`)) === 2 ? true : undefined),
    { timeoutMs: 30_000, what: "the lineage's vectors" },
  );
  const erasedRows = (await table
    .query()
    .where(`memory_id IN ('${v1}', '${v2}')`)
    .select(["chunk_id", "vector"])
    .toArray()) as { chunk_id: string; vector: { toArray(): Float32Array } }[];
  const chunkIds = erasedRows.map((r) => r.chunk_id);
  // The exact little-endian float32 bytes of each erased vector: its 64 dimensions (the test
  // embedder's width; the rest is the zero padding to the stored width, which every row shares).
  const vectorBytes = erasedRows.map((r) =>
    Buffer.from(Float32Array.from(r.vector.toArray().subarray(0, 64)).buffer),
  );
  t.true(vectorBytes.every((b) => b.some((byte) => byte !== 0)));

  // The worker's maintenance (the in-process worker may have built the index already while the rows
  // arrived; then this run folds the rest in): every row, the lineage's too, is in the index.
  await maintainVectorTable(vectors, owner.tenantId, space, { annIndexMinRows: 1_000 });
  const [index] = await table.listIndices();
  t.truthy(index, "the table has an ANN index");
  const statsBefore = await table.indexStats(index?.name ?? "");
  t.is(statsBefore?.numIndexedRows, FILLER + 2, "the erased lineage is in the index before");
  const dir = join(vectors.uri, `${vectorTableName(owner.tenantId, space)}.lance`);
  const needles = [...versions, ...chunkIds];
  t.true((await filesContaining(dir, needles)).length > 0, "the scan finds the ids before");
  for (const bytes of vectorBytes) {
    t.true((await filesWithBytes(dir, bytes)).length > 0, "the scan finds the vector's bytes before");
  }

  const res = await fetch(`${service.httpUrl}/api/v1/memories/${v2}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(res.status, 200);
  await waitFor(
    () =>
      service.logLines.some((l) => l.includes("erased data purged") && l.includes(owner.tenantId)) ||
      undefined,
    { timeoutMs: 120_000, what: "the purge job" },
  );

  const after = await rowsInAnyVersion(vectors, owner.tenantId, versions);
  t.is(after.hits, 0, "no version of the table lists an erased row");
  t.is(after.versions, 1, "only the current version is left");
  t.is(after.liveRows, FILLER);
  const [indexAfter] = await table.listIndices();
  t.truthy(indexAfter, "the table still has its ANN index");
  const statsAfter = await table.indexStats(indexAfter?.name ?? "");
  t.is(
    (statsAfter?.numIndexedRows ?? 0) + (statsAfter?.numUnindexedRows ?? 0),
    FILLER,
    `the index covers the live rows only (${JSON.stringify(statsAfter)})`,
  );
  t.deepEqual(await filesContaining(dir, [...needles, marker]), [], "no file holds an erased id");
  for (const bytes of vectorBytes) {
    t.deepEqual(await filesWithBytes(dir, bytes), [], "no file holds an erased vector's bytes");
  }
  // Search still works through the index.
  const hits = await vectors.search(
    owner.tenantId,
    space,
    Float32Array.from({ length: 64 }, () => 0.1),
    5,
  );
  t.is(hits.length, 5);
});
