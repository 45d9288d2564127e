import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { importTenant } from "../../core/lifecycle/import-tenant.js";
import { importedId } from "../../core/lifecycle/imported-id.js";
import { PLANS } from "../../core/plans/plans.js";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import type { VectorStore } from "../../core/vectors/vector-store.js";
import { VectorWriteUnverifiedError } from "../../core/vectors/write-verified.js";
import { LifecycleService } from "../../gen/memory/v1/lifecycle_service_pb.js";
import { graphClient, recallClient, storeMemory, testModels } from "../graph/graph-test-kit.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import type { TenantBundle } from "../tenancy/export-helper.js";
import { cookieHeader, freshIp, signIn, signInWithWorkspace } from "../tenancy/sign-in-helper.js";
import { fillerBundle, runCli, tenantRows } from "./lifecycle-kit.js";

// POST /api/tenant/import: export a workspace of one service instance, import the bundle into an
// empty workspace of a second instance (its own database and LanceDB), export again — the bundles are
// equal once the ids are mapped — and recall / recall_at_time answer the same on both. Refusals:
// unknown format (400), non-empty target (409), broken bundle (400, nothing left behind).

let source: TestService;
let target: TestService;

test.before(async () => {
  const options = { models: testModels(), worker: false, captureLogs: true, env: { TRUST_PROXY: "true" } };
  [source, target] = await Promise.all([startTestService(options), startTestService(options)]);
});

test.after.always(async () => {
  await Promise.all([source?.stop(), target?.stop()]);
});

async function ownerWithToken(service: TestService) {
  const owner = await signInWithWorkspace(service, "api");
  const { token } = await issueApiToken(service.storage.db.sql, {
    tenantId: owner.tenantId,
    name: "writer",
    scopes: ["read", "write", "admin"],
  });
  return { ...owner, token };
}

async function exportText(service: TestService, session: string): Promise<string> {
  const res = await fetch(`${service.httpUrl}/api/tenant/export`, {
    headers: { "x-forwarded-for": freshIp(), ...cookieHeader(session) },
  });
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  return res.text();
}

function importBundle(
  service: TestService,
  headers: Record<string, string>,
  body: string,
): Promise<Response> {
  return fetch(`${service.httpUrl}/api/tenant/import`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...headers },
    body,
  });
}

const long = (topic: string) =>
  Array.from({ length: 120 }, (_, i) => `Absatz ${i} zu ${topic}: Lieferung, Rechnung und Frist ${i}.`).join(
    " ",
  );

async function seed(service: TestService, token: string) {
  const tenant = { token };
  const graph = graphClient(service, token);
  const nordlicht = await storeMemory(service, tenant, {
    title: "Kunde Nordlicht",
    content: "Nordlicht zahlt net 30.",
  });
  const polar = await storeMemory(service, tenant, {
    title: "Projekt Polar",
    content: "Polar startet im Mai.",
  });
  const handbuch = await storeMemory(service, tenant, {
    title: "Handbuch",
    content: long("Logistik"),
    kind: "document",
  });
  await graph.link({ fromId: nordlicht, toId: polar, relType: "RELATED_TO" });
  await graph.link({ fromId: polar, toId: handbuch, relType: "DEPENDS_ON" });
  const between = new Date();
  await new Promise((r) => setTimeout(r, 20)); // distinct valid-time instants for recall_at_time
  const v2 = await graph.updateFact({
    targetId: nordlicht,
    newTitle: "Kunde Nordlicht",
    newContent: "Nordlicht zahlt net 45, neuer Rahmenvertrag.",
    updateReason: "Rahmenvertrag",
  });
  await graph.updateFact({
    targetId: v2.newMemoryId,
    newTitle: "Kunde Nordlicht",
    newContent: "Nordlicht zahlt net 60.",
  });
  return { between };
}

/** The bundle with every id of `from` replaced by its imported id in `toTenant`, keyed for comparison. */
function mapped(bundle: TenantBundle, toTenant: string) {
  const m = (id: string | null) => (id === null ? null : importedId(toTenant, id));
  return {
    memories: bundle.memories
      .map((r) => ({ ...r, id: m(r.id), lineageId: m(r.lineageId) }))
      .sort((a, b) => String(a.id).localeCompare(String(b.id))),
    edges: bundle.edges
      .map((e) => ({
        ...e,
        id: m(e.id),
        fromId: m(e.fromId),
        toId: m(e.toId),
        inverseEdgeId: m(e.inverseEdgeId),
      }))
      .sort((a, b) => String(a.id).localeCompare(String(b.id))),
  };
}

function sortedById<T extends { id: string }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.id.localeCompare(b.id));
}

test.serial("export → import on a second instance → export: equal bundles and equal recall", async (t) => {
  const a = await ownerWithToken(source);
  const { between } = await seed(source, a.token);
  const text = await exportText(source, a.session);
  const first = JSON.parse(text) as TenantBundle;
  t.true(first.memories.length >= 5 && first.edges.length >= 4);

  const b = await ownerWithToken(target);
  const res = await importBundle(target, cookieHeader(b.session), text);
  t.is(res.status, 200, await res.clone().text());
  const result = (await res.json()) as Record<string, unknown>;
  t.like(result, {
    imported: true,
    memories: first.memories.length,
    edges: first.edges.length,
    format: "memory-service-export/v1",
    sourceTenantId: a.tenantId,
  });
  t.true((result.chunks as number) >= first.memories.length);

  const second = JSON.parse(await exportText(target, b.session)) as TenantBundle;
  const expected = mapped(first, b.tenantId);
  t.deepEqual(
    sortedById(second.memories),
    expected.memories,
    "every version with its times, lineage and status",
  );
  t.deepEqual(sortedById(second.edges), expected.edges, "every edge with its inverse and validity");
  t.is(second.counts.memories, first.counts.memories);
  t.true(second.audit.some((e) => e.action === "tenant.imported"));

  // Recall and recall_at_time answer the same, ids mapped.
  const ra = recallClient(source, a.token);
  const rb = recallClient(target, b.token);
  const queries = [
    "Nordlicht zahlt",
    "Polar Mai",
    "Lieferung Rechnung Frist",
    "Rahmenvertrag",
    "Handbuch Logistik",
  ];
  for (const asOf of [undefined, between]) {
    for (const query of queries) {
      const request = { query, k: 10, ...(asOf ? { asOf: timestampFromDate(asOf) } : {}) };
      const [ha, hb] = await Promise.all([ra.recall(request), rb.recall(request)]);
      // Same hits with the same scores. The order within a run of equal candidates may differ: the
      // vector channel returns candidates at equal distance (e.g. no word in common with the query) in
      // storage order, which differs between two instances, and fusion turns that into rank order.
      const hitsOf = (
        hits: readonly { memoryId: string; title: string; content: string }[],
        map: (id: string) => string,
      ) => hits.map((h) => `${map(h.memoryId)} ${h.title} ${h.content}`).sort();
      const scoresOf = (hits: readonly { score: number }[]) =>
        hits.map((h) => Math.round(h.score * 1e6)).sort();
      const what = `recall "${query}"${asOf ? " at a past instant" : ""}`;
      t.deepEqual(
        hitsOf(hb.hits, (id) => id),
        hitsOf(ha.hits, (id) => importedId(b.tenantId, id)),
        what,
      );
      t.deepEqual(scoresOf(hb.hits), scoresOf(ha.hits), `${what}: scores`);
      t.is(hb.hits[0]?.memoryId, importedId(b.tenantId, ha.hits[0]?.memoryId ?? ""), `${what}: best hit`);
      t.true(ha.hits.length > 0, `"${query}" finds something`);
    }
  }

  // The target is no longer empty: a second import is refused and changes nothing — its vectors
  // included (a refused import once dropped the workspace's vector tables as if they were its own).
  const vectorsOf = async () => {
    const spaces = await target.storage.vectors.spaces(b.tenantId);
    return Promise.all(spaces.map(async (s) => [s, await target.storage.vectors.count(b.tenantId, s)]));
  };
  const vectorsBefore = await vectorsOf();
  t.true(vectorsBefore.length > 0);
  const again = await importBundle(target, cookieHeader(b.session), text);
  t.is(again.status, 409);
  t.regex(((await again.json()) as { error: string }).error, /not empty/);
  t.deepEqual(await vectorsOf(), vectorsBefore, "the workspace keeps its vectors");
});

test.serial(
  "an unknown format, a broken or truncated bundle, and the wrong caller leave nothing behind",
  async (t) => {
    const a = await ownerWithToken(source);
    await seed(source, a.token);
    const text = await exportText(source, a.session);
    const c = await ownerWithToken(target);
    const before = await tenantRows(target.storage.db.sql, c.tenantId);

    const unknown = await importBundle(
      target,
      cookieHeader(c.session),
      text.replace('"format":"memory-service-export/v1"', '"format":"memory-service-export/v9"'),
    );
    t.is(unknown.status, 400);
    t.regex(((await unknown.json()) as { error: string }).error, /unknown bundle format/);

    const lines = text.split("\n");
    const truncated = lines.slice(0, -4).join("\n");
    const cut = await importBundle(target, cookieHeader(c.session), truncated);
    t.is(cut.status, 400, "a truncated bundle (memories written before the end was read) is refused");
    const notJson = await importBundle(target, cookieHeader(c.session), "hello\n");
    t.is(notJson.status, 400);
    // An edge to a memory the bundle does not hold: the database refuses it, the caller gets 400.
    const dangling = text.replace(/"toId":"[0-9a-f-]{36}"/, '"toId":"7f000000-0000-4000-8000-000000000001"');
    t.is((await importBundle(target, cookieHeader(c.session), dangling)).status, 400);

    t.is(
      (await importBundle(target, { authorization: `Bearer ${c.token}` }, text)).status,
      401,
      "tokens may not import",
    );
    const member = await signIn(target);
    await target.storage.db.sql`insert into memberships (tenant_id, user_id, role)
    select ${c.tenantId}, id, 'member' from users where lower(email) = lower(${member.email})`;
    t.is(
      (await importBundle(target, cookieHeader(member.session), text)).status,
      403,
      "only the owner imports",
    );

    const after = await tenantRows(target.storage.db.sql, c.tenantId);
    t.deepEqual(
      { ...after, audit_log: [], memberships: [] },
      { ...before, audit_log: [], memberships: [] },
      "no memory, chunk, edge or statistic of the failed imports",
    );
    t.deepEqual(await target.storage.vectors.spaces(c.tenantId), [], "and no vector table");

    // The same bundle then imports cleanly.
    t.is((await importBundle(target, cookieHeader(c.session), text)).status, 200);
  },
);

test.serial(
  "ImportTenant over gRPC: a client stream in pieces that split lines and UTF-8 characters",
  async (t) => {
    const a = await ownerWithToken(source);
    await storeMemory(
      source,
      { token: a.token },
      { title: "Größenordnung", content: "Übergrößen für Bären: äöüß € 😀." },
    );
    const bytes = Buffer.from(await exportText(source, a.session), "utf8");
    const d = await ownerWithToken(target);
    const client = createClient(LifecycleService, createGrpcTransport({ baseUrl: target.grpcUrl }));
    async function* pieces() {
      // 7-byte pieces: lines and multi-byte characters are cut everywhere.
      for (let i = 0; i < bytes.length; i += 7) yield { chunk: bytes.subarray(i, i + 7) };
    }
    const res = await client.importTenant(pieces(), { headers: { "x-session-token": d.session } });
    t.like(res, { imported: true, memories: 1, format: "memory-service-export/v1" });
    const bundle = JSON.parse(await exportText(target, d.session)) as TenantBundle;
    t.is(bundle.memories[0]?.content, "Übergrößen für Bären: äöüß € 😀.");
    t.is(bundle.memories[0]?.title, "Größenordnung");
  },
);

test.serial(
  "vectors LanceDB acknowledged but that are not in the table fail the import: nothing is left",
  async (t) => {
    // The import no longer reads every batch back (ADR 0201); it counts the table's rows once before
    // it commits. A store that silently loses one row of the second batch must make it fail.
    const owner = await signInWithWorkspace(target, "api");
    const real = target.storage.vectors;
    let calls = 0;
    const lossy: VectorStore = {
      ...real,
      // The import appends through a bulk-write connection: that one loses the row.
      async forBulkWrite() {
        const bulk = await real.forBulkWrite();
        return {
          ...bulk,
          upsert(tenantId, space, rows, options) {
            calls++;
            return bulk.upsert(tenantId, space, calls === 2 ? rows.slice(1) : rows, options);
          },
        };
      },
    };
    const bundle = fillerBundle(300);
    const error = await t.throwsAsync(
      importTenant(
        {
          db: target.storage.db,
          vectors: lossy,
          embedder: testModels().embedder,
          logger: createLogger("silent"),
          purgeDelayMs: 0,
          upgradeUrl: "https://example.test/upgrade",
        },
        { tenantId: owner.tenantId, plan: "api", limits: PLANS.api, userId: undefined, tokenId: undefined },
        {
          chunks: (async function* () {
            yield Buffer.from(bundle, "utf8");
          })(),
          ip: undefined,
        },
      ),
    );
    t.true(error instanceof VectorWriteUnverifiedError, String(error));
    t.true(calls >= 2, "the bundle took two batches");
    const left = await tenantRows(target.storage.db.sql, owner.tenantId);
    t.deepEqual(left.memories, []);
    t.deepEqual(left.chunks, []);
    t.deepEqual(await real.spaces(owner.tenantId), [], "the import's vector table was dropped");
  },
);

test.serial("the operator imports a bundle file with `tenant import --slug x --file f`", async (t) => {
  const owner = await signInWithWorkspace(target, "api");
  const dir = await mkdtemp(join(tmpdir(), "memory-import-cli-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "bundle.json");
  await writeFile(file, fillerBundle(300));
  const env = { LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR };
  const done = await runCli(target, ["tenant", "import", "--slug", owner.slug, "--file", file], env);
  t.is(done.code, 0, done.stderr);
  t.regex(
    done.stdout,
    /^imported into ".+": 300 memory versions, 0 edges, 300 chunks \(memory-service-export\/v1\)\n$/,
  );
  const rows = await tenantRows(target.storage.db.sql, owner.tenantId);
  t.is(rows.memories?.length, 300);
  t.is(rows.chunks?.length, 300);
  // The CLI embeds with the instance's configured embedder (the built-in one), batch by batch.
  const spaces = await target.storage.vectors.spaces(owner.tenantId);
  t.is(spaces.length, 1);
  t.is(await target.storage.vectors.count(owner.tenantId, spaces[0] ?? ""), 300);

  const again = await runCli(target, ["tenant", "import", "--slug", owner.slug, "--file", file], env);
  t.not(again.code, 0, "a workspace that is not empty is refused");
  t.regex(again.stderr, /not empty/);
  t.is(await target.storage.vectors.count(owner.tenantId, spaces[0] ?? ""), 300, "and keeps its vectors");
});
