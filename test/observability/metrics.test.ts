import test from "ava";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { loadTestModels } from "../ingest/ingest-test-kit.js";
import { connectSdkClient } from "../mcp/sdk-client.js";
import { clientsFor } from "../recall/recall-test-kit.js";
import { sampleValue } from "./scrape.js";

const METRICS_TOKEN = "metrics-token-of-the-test-0123456789";
let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({
    models: await loadTestModels(),
    env: { METRICS_TOKEN, METRICS_PORT: "0" },
  });
  tenant = await service.createTenant();
});
test.after.always(async () => {
  await service?.stop();
});

const scrapeEdge = async (authorization?: string) =>
  fetch(`${service.httpUrl}/metrics`, authorization ? { headers: { authorization } } : {});
const scrapePort = async () => (await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`)).text();

test("the edge serves /metrics only to the bearer of METRICS_TOKEN; the metrics port to anyone on loopback", async (t) => {
  t.is((await scrapeEdge()).status, 401);
  t.is((await scrapeEdge(`Bearer ${tenant.token}`)).status, 401);
  const ok = await scrapeEdge(`Bearer ${METRICS_TOKEN}`);
  t.is(ok.status, 200);
  t.regex(ok.headers.get("content-type") ?? "", /^text\/plain/);
  t.regex(await ok.text(), /memory_process_cpu_seconds_total/);
  t.regex(await scrapePort(), /memory_nodejs_heap_size_used_bytes/);
});

test("requests through REST, MCP, gRPC and the worker move their metrics; labels are route patterns, never URLs or tokens", async (t) => {
  const bearer = { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" };
  const before = await scrapePort();
  const restRecalls = () =>
    sampleValue(scrapeText, "memory_http_request_duration_seconds_count", {
      method: "POST",
      route: "/api/memory/recall",
      status: "200",
    }) ?? 0;
  let scrapeText = before;
  const restBefore = restRecalls();

  // REST: two recalls, one store with an id in the URL afterwards, one unknown path with a secret.
  const stored = await fetch(`${service.httpUrl}/api/v1/memory/entries`, {
    method: "POST",
    headers: bearer,
    body: JSON.stringify({
      title: "Metrics fact",
      content: "The metrics fact says hello to Prometheus.",
      memoryType: "semantic",
    }),
  });
  t.is(stored.status, 201);
  const { id } = (await stored.json()) as { id: string };
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${service.httpUrl}/api/memory/recall`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ query: "metrics fact" }),
    });
    t.is(r.status, 200);
  }
  const versions = await fetch(`${service.httpUrl}/api/v1/memory/${id}/relations`, { headers: bearer });
  t.is(versions.status, 200);
  t.is((await fetch(`${service.httpUrl}/no/such/path?token=s3cret-value`)).status, 404);

  // MCP through the official SDK client.
  const mcp = await connectSdkClient(service.httpUrl, tenant.token, "json");
  await mcp.client.callTool({ name: "service_recall", arguments: { query: "metrics fact" } });
  await mcp.client.callTool({ name: "service_stats", arguments: {} });
  await mcp.close();

  // gRPC over HTTP/2, one OK and one refused call.
  const grpc = clientsFor(service, tenant);
  await grpc.recall.recall({ query: "metrics fact", k: 3 });
  await t.throwsAsync(clientsFor(service, { token: "kmt_wrong" }).recall.recall({ query: "x", k: 3 }));

  // A document above the inline limit goes to the worker.
  const doc = await fetch(`${service.httpUrl}/api/v1/documents`, {
    method: "POST",
    headers: bearer,
    body: JSON.stringify({ title: "Long", content: "Prometheus scrapes metrics. ".repeat(600) }),
  });
  t.is(doc.status, 202);

  scrapeText = await waitFor(
    async () => {
      const text = await scrapePort();
      return (sampleValue(text, "memory_job_duration_seconds_count", {
        task: "index-memory",
        outcome: "success",
      }) ?? 0) > 0
        ? text
        : undefined;
    },
    { timeoutMs: 60_000, what: "the index-memory job in the metrics" },
  );

  t.is(restRecalls() - restBefore, 2);
  t.true(
    (sampleValue(scrapeText, "memory_http_request_duration_seconds_count", {
      route: "/api/v1/memory/:id/relations",
      status: "200",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_http_request_duration_seconds_count", {
      route: "(unmatched)",
      status: "404",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_mcp_tool_call_duration_seconds_count", {
      tool: "service_recall",
      outcome: "ok",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_mcp_tool_call_duration_seconds_count", {
      tool: "service_stats",
      outcome: "ok",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_rpc_duration_seconds_count", {
      method: "memory.v1.RecallService/Recall",
      code: "OK",
      transport: "grpc",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_rpc_duration_seconds_count", {
      method: "memory.v1.RecallService/Recall",
      code: "Unauthenticated",
      transport: "grpc",
    }) ?? 0) >= 1,
  );
  t.true(
    (sampleValue(scrapeText, "memory_rpc_duration_seconds_count", {
      method: "memory.v1.RecallService/Recall",
      code: "OK",
      transport: "in_process",
    }) ?? 0) >= 3,
  );
  t.true((sampleValue(scrapeText, "memory_recall_stage_duration_seconds_count") ?? 0) >= 4);
  t.is(sampleValue(scrapeText, "memory_database_up"), 1);
  t.not(sampleValue(scrapeText, "memory_job_queue_oldest_seconds"), undefined);
  t.true((sampleValue(scrapeText, "memory_job_pool_connections", { state: "total" }) ?? 0) >= 1);

  // No raw URL, id, secret or token anywhere in the exposition.
  t.false(scrapeText.includes(id));
  t.false(scrapeText.includes("s3cret-value"));
  t.false(scrapeText.includes("/no/such/path"));
  t.false(scrapeText.includes(tenant.token));
});
