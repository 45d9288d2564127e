import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { run, startSdkTestService, steps } from "./sdk-test-kit.js";
import { GO_MISSING, go } from "./toolchains.js";

// The Go SDK (sdk/go: grpc-go stubs from buf.gen.sdk.yaml + memoryclient) against the live service.
// Built offline: GOPATH mode with Debian's grpc-go and protobuf sources in /usr/share/gocode and
// sdk/go linked in as memory-service/sdk/go; GOPROXY=off, so nothing is downloaded.

const goTest = go ? test.serial : test.skip;
const suffix = go ? "" : ` (${GO_MISSING})`;

let service: TestService | undefined;
let tenant: TestTenant;
let gopath = "";
let goEnv: Record<string, string> = {};
let packageDir = "";

if (go) {
  test.before(async () => {
    service = await startSdkTestService();
    tenant = await service.createTenant({ scopes: ["read", "write"] });
    gopath = await mkdtemp(join(tmpdir(), "memory-gopath-"));
    await mkdir(join(gopath, "src", "memory-service", "sdk"), { recursive: true });
    packageDir = join(gopath, "src", "memory-service", "sdk", "go");
    await symlink(resolve("sdk/go"), packageDir);
    goEnv = {
      GO111MODULE: "off",
      GOPATH: `${gopath}:/usr/share/gocode`,
      GOPROXY: "off",
      GOFLAGS: "",
      GOCACHE: process.env.GOCACHE || join(tmpdir(), "memory-go-build-cache"),
      MEMORY_URL: new URL(service.grpcUrl).host,
    };
  });
  test.after.always(async () => {
    await service?.stop();
    if (gopath) await rm(gopath, { recursive: true, force: true });
  });
}

goTest(`go: memoryclient tests (retries against a fake core, the live rate limit)${suffix}`, async (t) => {
  t.timeout(400_000);
  const limited = await service?.createTenant({ limitsOverride: { requestsPerMinutePerToken: 2 } });
  const result = await run("go", ["test", "-v", "-count=1", "./memoryclient/"], {
    cwd: packageDir,
    env: { ...goEnv, MEMORY_LIMITED_TOKEN: limited?.token ?? "" },
    timeoutMs: 380_000,
  });
  t.is(result.code, 0, result.stdout + result.stderr);
  for (const name of [
    "TestRateLimitWaitsRetryInfoWithToken",
    "TestAtMostThreeRetries",
    "TestJitter",
    "TestLiveRateLimitCarriesRetryInfo",
  ]) {
    t.regex(result.stdout, new RegExp(`--- PASS: ${name}`), name);
  }
});

goTest(`go: the walk-through example, store → recall → update_fact → recall_at_time${suffix}`, async (t) => {
  t.timeout(400_000);
  const result = await run("go", ["run", resolve("examples/go/walkthrough/main.go")], {
    cwd: packageDir,
    env: { ...goEnv, MEMORY_TOKEN: tenant.token },
    timeoutMs: 380_000,
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
});
