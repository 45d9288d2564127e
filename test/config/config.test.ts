import { spawnSync } from "node:child_process";
import test from "ava";
import { ConfigError, defaultWorkspaceStateBudgetBytes, loadConfig } from "../../config/config.js";

test("defaults: embedded PostgreSQL, in-memory limits, ports 8080/50051, data in ./data", (t) => {
  const config = loadConfig({});
  t.is(config.port, 8080);
  t.is(config.grpcPort, 50051);
  t.is(config.databaseUrl, undefined);
  t.is(config.redisUrl, undefined);
  t.regex(config.dataDir, /\/data$/);
  t.is(config.lancedbUri, `${config.dataDir}/lancedb`);
  t.is(config.embedding.kind, "builtin");
  t.is(config.publicUrl, "http://localhost:8080");
});

test("an empty variable counts as unset", (t) => {
  t.is(loadConfig({ PORT: "", DATABASE_URL: "" }).port, 8080);
});

for (const [variable, value] of [
  ["PORT", "eighty"],
  ["PORT", "70000"],
  ["GRPC_PORT", "-1"],
  ["DATABASE_URL", "mysql://x"],
  ["REDIS_URL", "not a url"],
  ["LOG_LEVEL", "loud"],
  ["CORE_URL", "ftp://core"],
  ["CORE_URL", "http://core-a:50051,ftp://core-b"],
  ["CORE_URL", "http://core-a:50051,"],
  ["CORE_URL", "http://core-a:50051, http://core-a:50051"],
  ["MASTER_KEY", "short"],
] as const) {
  test(`a bad ${variable} (${value}) is one ConfigError naming the variable`, (t) => {
    const error = t.throws(() => loadConfig({ [variable]: value }), { instanceOf: ConfigError });
    t.true(error?.message.startsWith(`${variable}: `), error?.message);
    t.false(error?.message.includes("\n"));
  });
}

test("CORE_URL is one core or a comma-separated list of cores, in the order given", (t) => {
  t.deepEqual(loadConfig({ CORE_URL: "http://core:50051" }).coreUrls, ["http://core:50051"]);
  t.deepEqual(loadConfig({ CORE_URL: " http://core-a:50051, https://core-b:443 " }).coreUrls, [
    "http://core-a:50051",
    "https://core-b:443",
  ]);
  t.is(loadConfig({}).coreUrls, undefined);
});

test("secret-bearing values are never echoed in the error", (t) => {
  const error = t.throws(() => loadConfig({ DATABASE_URL: "mysql://user:hunter2@db" }));
  t.false(error?.message.includes("hunter2"));
});

test("a provider that needs settings says which one is missing", (t) => {
  t.throws(() => loadConfig({ EMBEDDING_PROVIDER: "onnx" }), { message: /^EMBEDDING_MODEL_DIR: / });
  t.throws(() => loadConfig({ EMBEDDING_PROVIDER: "http", EMBEDDING_URL: "http://x" }), {
    message: /^EMBEDDING_MODEL: /,
  });
  t.throws(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_x" }), { message: /^STRIPE_WEBHOOK_SECRET: / });
});

test("npm start with a bad value exits 1 with one line naming the variable, no stack trace", (t) => {
  const result = spawnSync(process.execPath, ["scripts/start.mjs", "apps/all-in-one.ts"], {
    env: { ...process.env, PORT: "eighty" },
    encoding: "utf8",
    timeout: 30_000,
  });
  t.is(result.status, 1);
  const lines = result.stderr.trim().split("\n");
  t.is(lines.length, 1, result.stderr);
  t.regex(lines[0] ?? "", /^configuration error: PORT: /);
});

test("metrics and tracing are off unless configured; a short METRICS_TOKEN is refused without echoing it", (t) => {
  const plain = loadConfig({});
  t.deepEqual(plain.metrics, { host: "127.0.0.1" });
  t.deepEqual(plain.tracing, { serviceName: "memory-service" });
  const on = loadConfig({
    METRICS_PORT: "9464",
    METRICS_TOKEN: "a-long-enough-metrics-token",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
  });
  t.deepEqual(on.metrics, { port: 9464, host: "127.0.0.1", token: "a-long-enough-metrics-token" });
  t.is(on.tracing.otlpEndpoint, "http://collector:4318");
  const error = t.throws(() => loadConfig({ METRICS_TOKEN: "short-secret" }));
  t.regex(error?.message ?? "", /^METRICS_TOKEN: /);
  t.false(error?.message.includes("short-secret"));
});

test("recall's BM25: the in-process index by default, sql by variable", (t) => {
  t.deepEqual(loadConfig({ DATA_DIR: "/srv/memory" }).bm25Index, {
    mode: "memory",
    segmentDirectory: "/srv/memory/bm25",
  });
  t.is(loadConfig({ BM25_INDEX: "sql" }).bm25Index.mode, "sql");
  t.throws(() => loadConfig({ BM25_INDEX: "lucene" }), { message: /^BM25_INDEX: / });
});

test("the workspace state budget: 1/32 of the memory between 128 MiB and 1 GiB, or set (older name BM25_INDEX_BUDGET_MB)", (t) => {
  const MiB = 2 ** 20;
  t.is(defaultWorkspaceStateBudgetBytes(24 * 1024 * MiB, 0), 768 * MiB);
  t.is(defaultWorkspaceStateBudgetBytes(2 * 1024 * MiB, 0), 128 * MiB, "a small machine still gets 128 MiB");
  t.is(defaultWorkspaceStateBudgetBytes(256 * 1024 * MiB, 0), 1024 * MiB, "at most 1 GiB by default");
  t.is(defaultWorkspaceStateBudgetBytes(64 * 1024 * MiB, 8 * 1024 * MiB), 256 * MiB, "a cgroup limit counts");
  t.is(loadConfig({}).workspaceState.budgetBytes, defaultWorkspaceStateBudgetBytes());
  t.deepEqual(loadConfig({ WORKSPACE_STATE_BUDGET_MB: "512" }).workspaceState, {
    budgetBytes: 512 * MiB,
    vectorIndexCacheBytes: 256 * MiB,
  });
  t.is(loadConfig({ BM25_INDEX_BUDGET_MB: "64" }).workspaceState.budgetBytes, 64 * MiB);
  t.is(
    loadConfig({ BM25_INDEX_BUDGET_MB: "64", WORKSPACE_STATE_BUDGET_MB: "32" }).workspaceState.budgetBytes,
    32 * MiB,
  );
  t.throws(() => loadConfig({ WORKSPACE_STATE_BUDGET_MB: "8" }), { message: /^WORKSPACE_STATE_BUDGET_MB: / });
  t.throws(() => loadConfig({ BM25_INDEX_BUDGET_MB: "0" }), { message: /^BM25_INDEX_BUDGET_MB: / });
});

test("RECALL_TIME_ZONE: UTC by default, an IANA zone by variable, an unknown zone refused", (t) => {
  t.is(loadConfig({}).recallTimeZone, "UTC");
  t.is(loadConfig({ RECALL_TIME_ZONE: "Europe/Berlin" }).recallTimeZone, "Europe/Berlin");
  t.throws(() => loadConfig({ RECALL_TIME_ZONE: "Mars/Olympus" }), {
    instanceOf: ConfigError,
    message: /RECALL_TIME_ZONE/,
  });
});
