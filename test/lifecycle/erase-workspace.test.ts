import { readdir } from "node:fs/promises";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { tenantTablePrefix } from "../../core/vectors/vector-table-name.js";
import { graphClient, storeMemory, testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { cookieHeader, freshIp, signIn, signInWithWorkspace } from "../tenancy/sign-in-helper.js";
import { filesContaining, runCli, scanEveryTable, tenantRows } from "./lifecycle-kit.js";

// POST /api/tenant/erase (the owner's session, slug typed again) and `npm run cli -- tenant erase`:
// every row of the workspace in every table, its vector tables and files, its tokens and sessions go;
// one record outside the tenant remains; a second workspace is untouched row for row.

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

const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");

function eraseRequest(headers: Record<string, string>, confirmSlug: string): Promise<Response> {
  return fetch(`${service.httpUrl}/api/tenant/erase`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...headers },
    body: JSON.stringify({ confirmSlug }),
  });
}

async function seedWorkspace(tenantId: string, marker: string) {
  const { token, id: tokenId } = await issueApiToken(service.storage.db.sql, {
    tenantId,
    name: "writer",
    scopes: ["read", "write", "admin"],
  });
  const a = await storeMemory(
    service,
    { token },
    { title: `Kunde ${marker}`, content: `${marker} zahlt net 30.` },
  );
  const b = await storeMemory(
    service,
    { token },
    { title: "Projekt", content: `Projekt für ${marker} startet.` },
  );
  const graph = graphClient(service, token);
  await graph.link({ fromId: a, toId: b, relType: "RELATED_TO" });
  await graph.updateFact({ targetId: a, newTitle: `Kunde ${marker}`, newContent: `${marker} zahlt net 45.` });
  await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: marker }),
  });
  return { token, tokenId, memoryIds: [a, b] };
}

test.serial("the owner erases the workspace: nothing of it is left but the erasure record", async (t) => {
  const owner = await signInWithWorkspace(service, "api");
  const marker = `zqw${letters(10)}`;
  const { token, tokenId, memoryIds } = await seedWorkspace(owner.tenantId, marker);
  const bystander = await service.createTenant();
  await storeMemory(service, bystander, { title: "Fremd", content: "Ein anderer Arbeitsbereich." });
  const sql = service.storage.db.sql;
  const bystanderBefore = await tenantRows(sql, bystander.tenantId);
  t.true((await service.storage.vectors.spaces(owner.tenantId)).length > 0, "the workspace has vectors");

  // A member who is not the owner, a token, and a wrong slug are refused; nothing is erased.
  const member = await signIn(service);
  await sql`insert into memberships (tenant_id, user_id, role)
            select ${owner.tenantId}, id, 'member' from users where lower(email) = lower(${member.email})`;
  t.is((await eraseRequest(cookieHeader(member.session), owner.slug)).status, 403);
  t.is((await eraseRequest({ authorization: `Bearer ${token}` }, owner.slug)).status, 401);
  const wrong = await eraseRequest(cookieHeader(owner.session), `${owner.slug}x`);
  t.is(wrong.status, 400);
  t.regex(((await wrong.json()) as { error: string }).error, /slug/);
  t.is((await sql`select 1 from tenants where id = ${owner.tenantId}`).length, 1);

  const res = await eraseRequest(cookieHeader(owner.session), owner.slug);
  t.is(res.status, 200);
  const body = (await res.json()) as {
    erased: boolean;
    tenantId: string;
    rows: number;
    vectorTables: number;
  };
  t.like(body, { erased: true, tenantId: owner.tenantId, vectorTables: 1 });
  t.true(body.rows > 10);
  t.true(
    res.headers.getSetCookie().some((c) => c.startsWith("service.session-token=;")),
    "the cookie is cleared",
  );

  // Tokens and sessions stop working at once.
  const recall = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: marker }),
  });
  t.is(recall.status, 401);
  const session = await fetch(`${service.httpUrl}/api/auth/session`, {
    headers: cookieHeader(owner.session),
  });
  t.is(session.status, 401);

  await waitFor(
    () =>
      service.logLines.some((l) => l.includes("erased data purged") && l.includes(owner.tenantId)) ||
      undefined,
    { timeoutMs: 60_000, what: "the purge job" },
  );
  // The job logs before graphile-worker completes it: its row (key naming the tenant) goes a moment
  // later, and a scan in between found it.
  await waitFor(
    async () => {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from graphile_worker._private_jobs where key like ${`%${owner.tenantId}%`}`;
      return row?.n === 0 || undefined;
    },
    { timeoutMs: 60_000, what: "the purge job's row to go" },
  );
  const needles = [owner.tenantId, owner.slug, owner.email, marker, tokenId, ...memoryIds];
  const { hits } = await scanEveryTable(sql, needles, (table) => table === "public.workspace_erasures");
  t.deepEqual(hits, [], "no table holds anything of the workspace");
  const records = await sql<{ tenant_id: string; actor: string; details: Record<string, unknown> }[]>`
    select tenant_id, actor, details from workspace_erasures where tenant_id = ${owner.tenantId}`;
  t.is(records.length, 1);
  t.regex(records[0]?.actor ?? "", /^user:[0-9a-f-]{36}$/);
  t.false(JSON.stringify(records).includes(marker) || JSON.stringify(records).includes(owner.slug));

  const prefix = tenantTablePrefix(owner.tenantId);
  t.false((await service.storage.vectors.listTables()).some((v) => v.tenantId === owner.tenantId));
  t.false((await readdir(service.storage.vectors.uri)).some((name) => name.startsWith(prefix)));
  t.deepEqual(await filesContaining(service.storage.vectors.uri, needles), []);

  t.deepEqual(await tenantRows(sql, bystander.tenantId), bystanderBefore, "the other workspace is untouched");
});

const cli = (...args: string[]) => runCli(service, args);

test.serial("the operator erases a workspace with `tenant erase --slug x --confirm x`", async (t) => {
  const tenant = await service.createTenant();
  const marker = `zqc${letters(10)}`;
  await storeMemory(service, tenant, { title: `Notiz ${marker}`, content: `${marker} ist geheim.` });
  const wrong = await cli("tenant", "erase", "--slug", tenant.slug, "--confirm", "nope");
  t.not(wrong.code, 0);
  t.regex(wrong.stderr, /slug/);
  const done = await cli("tenant", "erase", "--slug", tenant.slug, "--confirm", tenant.slug);
  t.is(done.code, 0, done.stderr);
  t.regex(done.stdout, /^erased workspace ".+" \([0-9a-f-]{36}\): \d+ rows, 1 vector tables\n$/);
  const sql = service.storage.db.sql;
  const left = await tenantRows(sql, tenant.tenantId);
  for (const [table, rows] of Object.entries(left)) {
    t.deepEqual(rows, table === "workspace_erasures" ? rows.slice(0, 1) : [], `${table} is empty`);
  }
  t.is(left.workspace_erasures?.length, 1);
  const [record] = await sql<
    { actor: string }[]
  >`select actor from workspace_erasures where tenant_id = ${tenant.tenantId}`;
  t.is(record?.actor, "operator");
  t.false((await service.storage.vectors.listTables()).some((v) => v.tenantId === tenant.tenantId));
});
