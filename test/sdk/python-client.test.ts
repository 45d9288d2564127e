import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { run, startSdkTestService, steps } from "./sdk-test-kit.js";
import { PYTHON_MISSING, python } from "./toolchains.js";

// The Python SDK (sdk/python: grpcio stubs from buf.gen.sdk.yaml + memory_client) against the live
// service. Runs where python3 has grpcio and protobuf (.ci/run installs them from Debian).

const pythonTest = python ? test : test.skip;
const suffix = python ? "" : ` (${PYTHON_MISSING})`;
const PYTHONPATH = "sdk/python:sdk/python/gen";

let service: TestService | undefined;
let tenant: TestTenant;

if (python) {
  test.before(async () => {
    service = await startSdkTestService();
    tenant = await service.createTenant({ scopes: ["read", "write"] });
  });
  test.after.always(() => service?.stop());
}
const grpcTarget = () => new URL(service?.grpcUrl ?? "http://x").host;

pythonTest(
  `python: the walk-through example, store → recall → update_fact → recall_at_time${suffix}`,
  async (t) => {
    const result = await run(python ?? "python3", ["examples/python/walkthrough.py"], {
      env: { MEMORY_URL: grpcTarget(), MEMORY_TOKEN: tenant.token },
    });
    t.is(result.code, 0, result.stderr);
    const s = steps(result.stdout);
    const stored = s.get("store");
    const updated = s.get("update_fact");
    t.truthy(stored?.memoryId);
    t.is(s.get("recall")?.memoryId, stored?.memoryId);
    t.is(updated?.oldMemoryId, stored?.memoryId);
    t.is(s.get("recall_now")?.memoryId, updated?.newMemoryId);
    t.regex(String(s.get("recall_now")?.top), /Hamburg/);
    t.is(s.get("recall_at_time")?.memoryId, stored?.memoryId);
    t.regex(String(s.get("recall_at_time")?.top), /Berlin/);
    t.truthy(s.get("recall_at_time")?.validTo);
  },
);

pythonTest(`python: retries (fake core) and the live rate limit's RetryInfo${suffix}`, async (t) => {
  const limited = await service?.createTenant({ limitsOverride: { requestsPerMinutePerToken: 2 } });
  const result = await run(
    python ?? "python3",
    ["-m", "unittest", "discover", "-s", "sdk/python/tests", "-v"],
    {
      env: { PYTHONPATH, MEMORY_URL: grpcTarget(), MEMORY_LIMITED_TOKEN: limited?.token ?? "" },
    },
  );
  t.is(result.code, 0, result.stderr);
  t.regex(result.stderr, /Ran 4 tests/);
  t.notRegex(result.stderr, /skipped/, "the live test ran too");
});
