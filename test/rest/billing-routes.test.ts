import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { errorOf, rest } from "./rest-client.js";
import { createSessionCookie } from "./sessions.js";

// The subscription and cancellation routes end to end with plain fetch: the per-IP limits the spec
// sets for /api/checkout (10 / 60 s) and /api/kuendigung (5 / 60 s), which hold whatever core
// answers behind them.

let service: TestService;
let tenant: TestTenant;
let cookie: string;
let url: string;

test.before(async () => {
  // A small deterministic embedder: these tests are about the REST surface, not model quality.
  service = await startTestService({ models: testModels() });
  url = service.httpUrl;
  tenant = await service.createTenant({ plan: "free" });
  cookie = await createSessionCookie(service, tenant.tenantId);
});

test.after.always(async () => {
  await service?.stop();
});

async function untilLimited(path: string, body: unknown, headers: { cookie?: string }) {
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await rest(url, path, { ...headers, body });
    statuses.push(res.status);
    if (res.status === 429) return { statuses, res };
  }
  return { statuses, res: undefined };
}

test.serial(
  "POST /api/checkout: the 11th call from one address within 60 s is 429 with Retry-After",
  async (t) => {
    const { statuses, res } = await untilLimited("/api/checkout", { plan: "pro" }, { cookie });
    t.is(statuses.length, 11, `statuses: ${statuses.join(",")}`);
    t.false(statuses.slice(0, 10).includes(429));
    t.regex(res?.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
    t.truthy(errorOf(res ?? { status: 0, headers: new Headers(), body: {}, text: "" }));
  },
);

test.serial(
  "POST /api/kuendigung: the 6th call from one address within 60 s is 429 with Retry-After",
  async (t) => {
    const { statuses, res } = await untilLimited("/api/kuendigung", { email: "kunde@example.test" }, {});
    t.is(statuses.length, 6, `statuses: ${statuses.join(",")}`);
    t.false(statuses.slice(0, 5).includes(429));
    t.regex(res?.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
  },
);
