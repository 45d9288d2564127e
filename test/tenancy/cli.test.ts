import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { API_TOKEN_PATTERN } from "../../core/auth/token-format.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";

// `npm run cli -- …` as the operator runs it (a child process configured by the environment),
// against the database of a running service: the workspace and token it creates work over the API
// at once, and a revoke from the CLI takes effect in the running service within its 1 s cache.

let service: TestService;
let dataDir: string;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  dataDir = await mkdtemp(join(tmpdir(), "memory-cli-"));
});

test.after.always(async () => {
  await service?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, ["--import", "tsx", "cli/main.ts", ...args], {
    env: { ...process.env, DATABASE_URL: service.database.url, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const whoAmI = (token: string) =>
  fetch(`${service.httpUrl}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });

test.serial("tenant create, token create: the printed token works against the running service", async (t) => {
  const created = await cli("tenant", "create", "--slug", "acme", "--name", "ACME GmbH", "--plan", "api");
  t.is(created.code, 0, created.stderr);
  t.regex(created.stdout, /^created workspace "acme" \([0-9a-f-]{36}\) on the api plan\n$/);

  const issued = await cli("token", "create", "--tenant", "acme", "--name", "ci", "--scopes", "read,write");
  t.is(issued.code, 0, issued.stderr);
  const token = issued.stdout.trim();
  t.regex(token, API_TOKEN_PATTERN);
  t.is(issued.stdout, `${token}\n`, "stdout carries the token and nothing else");
  t.regex(issued.stderr, /shown once/);
  t.false(issued.stderr.includes(token));

  const who = await whoAmI(token);
  t.is(who.status, 200);
  t.like(await who.json(), {
    credential: "token",
    tenantSlug: "acme",
    plan: "api",
    scopes: ["read", "write"],
  });

  const listed = await cli("token", "list", "--tenant", "acme");
  t.is(listed.code, 0);
  t.regex(listed.stdout, /read,write .* ci\n$/);
  t.false(listed.stdout.includes(token));

  const tenants = await cli("tenant", "list");
  t.is(tenants.code, 0);
  t.regex(tenants.stdout, /^SLUG\s+PLAN\s+TOKENS\s+MEMBERS/);
  t.regex(tenants.stdout, /\nacme\s+api\s+1\s+0\s/);

  const audit = await service.storage.db.sql<{ action: string }[]>`
    select a.action from audit_log a join tenants t on t.id = a.tenant_id where t.slug = 'acme' order by a.id`;
  t.deepEqual(
    audit.map((r) => r.action),
    ["tenant.created", "token.created"],
  );
});

test.serial("token revoke: the running service refuses the token within its 1 s cache", async (t) => {
  await cli("tenant", "create", "--slug", "revokes", "--plan", "free");
  const token = (await cli("token", "create", "--tenant", "revokes")).stdout.trim();
  t.is((await whoAmI(token)).status, 200, "cached in the service now");
  const [row] = await service.storage.db.sql<{ id: string }[]>`
    select t.id from api_tokens t join tenants tn on tn.id = t.tenant_id where tn.slug = 'revokes'`;
  const revoked = await cli("token", "revoke", "--id", row?.id ?? "");
  t.is(revoked.code, 0, revoked.stderr);
  t.regex(revoked.stdout, /revoked token .* of "revokes"/);
  const started = Date.now();
  await waitFor(async () => ((await whoAmI(token)).status === 401 ? true : undefined), {
    timeoutMs: 5000,
    intervalMs: 100,
    what: "the revoked token to be refused",
  });
  t.true(Date.now() - started <= 1500, "refused within the cache lifetime (plus a request)");
  t.regex((await cli("token", "revoke", "--id", row?.id ?? "")).stdout, /already revoked/);
});

test.serial("bad input is one line on stderr and a non-zero exit", async (t) => {
  const cases: [string[], RegExp, number][] = [
    [["tenant", "create", "--slug", "A"], /--slug: /, 1],
    [["tenant", "create", "--slug=-x"], /--slug: /, 1],
    [
      ["tenant", "create", "--slug", "ok-slug", "--plan", "gold"],
      /--plan: one of free, plus, pro, team, api/,
      1,
    ],
    [["tenant", "create", "--slug", "acme"], /slug "acme" is taken/, 1],
    [["token", "create", "--tenant", "nope"], /no workspace with slug "nope"/, 1],
    [["token", "create", "--tenant", "acme", "--scopes", "read,root"], /--scopes: unknown scope root/, 1],
    [["token", "create"], /--tenant: /, 2],
    [["token", "revoke", "--id", "x"], /--id: /, 2],
    [["token", "revoke", "--id", "00000000-0000-4000-8000-000000000000"], /no token with id/, 1],
    [["tenant", "delete"], /unknown command "tenant delete"/, 2],
    [["tenant", "create", "--bogus"], /Unknown option '--bogus'/, 2],
  ];
  // Three at a time: each is a process start, and none of them writes anything.
  for (let i = 0; i < cases.length; i += 3) {
    const batch = cases.slice(i, i + 3);
    const results = await Promise.all(batch.map(([args]) => cli(...args)));
    batch.forEach(([args, message, code], j) => {
      t.is(results[j]?.code, code, args.join(" "));
      t.regex(results[j]?.stderr ?? "", message, args.join(" "));
    });
  }
});

test.serial("the 50-token cap applies to the CLI too", async (t) => {
  await cli("tenant", "create", "--slug", "capped");
  const [tenant] = await service.storage.db.sql<
    { id: string }[]
  >`select id from tenants where slug = 'capped'`;
  const { issueApiToken } = await import("../../core/tenancy/api-tokens.js");
  for (let i = 0; i < 50; i++) {
    await issueApiToken(service.storage.db.sql, {
      tenantId: tenant?.id ?? "",
      name: `t${i}`,
      scopes: ["read"],
    });
  }
  const result = await cli("token", "create", "--tenant", "capped");
  t.is(result.code, 1);
  t.regex(result.stderr, /at most 50 active tokens/);
});

test.serial(
  "tenant set-plan changes the plan (audited) and the gate follows on the next request",
  async (t) => {
    const created = await cli("tenant", "create", "--slug", "planned", "--plan", "free");
    t.is(created.code, 0, created.stderr);
    const issued = await cli("token", "create", "--tenant", "planned", "--scopes", "read");
    const token = issued.stdout.trim();
    t.like(await (await whoAmI(token)).json(), { plan: "free" });

    const set = await cli("tenant", "set-plan", "--tenant", "planned", "--plan", "api");
    t.is(set.code, 0, set.stderr);
    t.is(set.stdout, 'workspace "planned": plan free → api\n');
    const [audit] = await service.storage.db.sql<{ details: Record<string, unknown> }[]>`
    select a.details from audit_log a join tenants t on t.id = a.tenant_id
    where t.slug = 'planned' and a.action = 'tenant.plan_changed'`;
    t.deepEqual(audit?.details, { via: "cli", plan: "api", previousPlan: "free" });
    // Another process changed the plan: this service sees it once its 1-second token cache expires.
    await waitFor(
      async () =>
        ((await (await whoAmI(token)).json()) as { plan: string }).plan === "api" ? true : undefined,
      { what: "the new plan" },
    );

    t.is((await cli("tenant", "set-plan", "--tenant", "nope", "--plan", "api")).code, 1);
    const bad = await cli("tenant", "set-plan", "--tenant", "planned", "--plan", "gold");
    t.not(bad.code, 0);
    t.regex(bad.stderr, /--plan: one of free, plus, pro, team, api/);
  },
);
