import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { rest } from "./rest-client.js";
import { createSessionCookie } from "./sessions.js";

// GET /api/memory/{id}/versions (Both) and /api/v1/memory/{id}/versions (Bearer) →
// GraphService/ListVersions: the bi-temporal history of one fact, oldest first.

interface Version {
  id: string;
  title: string;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  supersedesId: string | null;
  updateReason: string | null;
}

let service: TestService;
let url: string;
let tenant: TestTenant;
let ids: string[] = [];

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  url = service.httpUrl;
  tenant = await service.createTenant({ plan: "api" });
  const stored = await rest(url, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: "semantic", title: "Office", content: "The office is in Bonn." },
  });
  const first = (stored.body as { memoryId: string }).memoryId;
  const second = await rest(url, `/api/v1/memory/${first}/versions`, {
    token: tenant.token,
    body: { newTitle: "Office", newContent: "The office is in Köln.", updateReason: "moved" },
  });
  const secondId = (second.body as { newMemoryId: string }).newMemoryId;
  const third = await rest(url, `/api/v1/memory/${secondId}/versions`, {
    token: tenant.token,
    body: { newTitle: "Office", newContent: "The office is in Düsseldorf." },
  });
  ids = [first, secondId, (third.body as { newMemoryId: string }).newMemoryId];
});

test.after.always(async () => {
  await service?.stop();
});

test("every version of the fact, oldest first, with valid and recorded time and the SUPERSEDES chain", async (t) => {
  for (const from of ids) {
    const res = await rest(url, `/api/v1/memory/${from}/versions`, { token: tenant.token });
    t.is(res.status, 200, res.text);
    const { versions } = res.body as { versions: Version[] };
    t.deepEqual(
      versions.map((v) => v.id),
      ids,
    );
    t.deepEqual(
      versions.map((v) => v.supersedesId),
      [null, ids[0], ids[1]],
    );
    t.deepEqual(
      versions.map((v) => v.updateReason),
      [null, "moved", null],
    );
    // Closed versions end where the next begins; the current one has no end.
    t.is(versions[0]?.validTo, versions[1]?.validFrom);
    t.is(versions[1]?.validTo, versions[2]?.validFrom);
    t.is(versions[2]?.validTo, null);
    const recorded = versions.map((v) => Date.parse(v.recordedAt));
    t.deepEqual(
      [...recorded].sort((a, b) => a - b),
      recorded,
    );
  }
});

test("the session reads it under /api; read scope suffices; unknown and foreign ids are 404, bad ids 400", async (t) => {
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const session = await rest(url, `/api/memory/${ids[2]}/versions`, { cookie });
  t.is(session.status, 200, session.text);
  t.is((session.body as { versions: Version[] }).versions.length, 3);
  const reader = await tenant.issueToken(["read"]);
  t.is((await rest(url, `/api/v1/memory/${ids[0]}/versions`, { token: reader.token })).status, 200);
  const other = await service.createTenant({ plan: "api" });
  t.is((await rest(url, `/api/v1/memory/${ids[0]}/versions`, { token: other.token })).status, 404);
  const unknown = "00000000-0000-4000-8000-000000000000";
  t.is((await rest(url, `/api/v1/memory/${unknown}/versions`, { token: tenant.token })).status, 404);
  t.is((await rest(url, "/api/v1/memory/not-a-uuid/versions", { token: tenant.token })).status, 400);
  t.is((await rest(url, `/api/v1/memory/${ids[0]}/versions`)).status, 401);
});

test("?content=true adds each version's full text (the dashboard's edit box); without it no content; kind and memory type always", async (t) => {
  const plain = await rest(url, `/api/v1/memory/${ids[1]}/versions`, { token: tenant.token });
  t.true((plain.body as { versions: Version[] }).versions.every((v) => !("content" in v)));
  const full = await rest(url, `/api/v1/memory/${ids[1]}/versions?content=true`, { token: tenant.token });
  t.is(full.status, 200, full.text);
  t.deepEqual(
    (full.body as { versions: (Version & { content?: string })[] }).versions.map((v) => v.content),
    ["The office is in Bonn.", "The office is in Köln.", "The office is in Düsseldorf."],
  );
  t.is(
    (await rest(url, `/api/v1/memory/${ids[1]}/versions?content=yes`, { token: tenant.token })).status,
    400,
  );
});
