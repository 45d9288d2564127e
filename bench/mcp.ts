import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createLogger } from "../config/logger.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { createEdge } from "../edge/create-edge.js";
import { createCoreClients } from "../gateway-kit/core-clients.js";
import { type RecallResponse, RecallService } from "../gen/memory/v1/recall_service_pb.js";
import { startTestService } from "../test/helpers/test-service.js";
import { UNTHROTTLED } from "../test/mcp/post-mcp.js";
import { switchableModels } from "../test/mcp/switchable-embedder.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:mcp` (issue #8 "Measure"): tools/call service_recall through the MCP gateway
// (HTTP POST, JSON-RPC, snake_case translation) against the same Recall called directly on core in
// the same run — in process, exactly the client the gateway uses, so the difference is the gateway
// (HTTP server, edge hooks, JSON-RPC, translation) plus the HTTP client — and over gRPC (HTTP/2)
// for reference. Latency one call at a time, alternating the paths so drift hits both alike;
// throughput with several callers. Target: gateway overhead < 2 ms p50.
//
// Recall itself costs tens of ms of CPU, and on a shared 2-core machine its jitter is larger than
// the gateway's share. So the same edge and gateway are also measured in front of a core whose
// Recall answers the recorded hits at once ("isolated"): there the difference is the gateway alone,
// and CPU time per call (robust where wall time includes waiting for a core) is meaningful.
// The HTTP client is node:http with keep-alive (fetch/undici costs ~0.6 ms CPU more per call, which
// would be counted as gateway overhead). A small deterministic embedder keeps recall steady.
//
// Issue 47 "Measure": one row per MCP revision in front of the same stub core — a 2025-06-18 and a
// 2025-11-25 call inside an initialized session (MCP-Protocol-Version header, no _meta) and a
// stateless 2026-07-28 call (per-request _meta, Mcp-Method/Mcp-Name checked against the body,
// resultType and server info added to the result): overhead over the in-process core call, p50/p95.
// Needs PostgreSQL like `npm test`.

const MEMORIES = 300;
const WARMUP = 50;
const ITERATIONS = Number(process.argv[2] ?? 400);
const ISOLATED_ITERATIONS = 3000;
const REVISION_ITERATIONS = 2000;
const REVISIONS = ["2025-06-18", "2025-11-25", "2026-07-28"] as const;
type Revision = (typeof REVISIONS)[number];
const CPU_CALLS = 2000;
const CONCURRENCY = 8;
const THROUGHPUT_SECONDS = 5;
const QUERY = { query: "quarterly budget review for the logistics project", k: 5, hops: 2 };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (x: number) => Math.round(x * 1000) / 1000;
const log = (line: string) => process.stdout.write(`${line}\n`);

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Gateway vs direct, alternating which goes first so neither always runs on a warmer cache. */
async function pairedLatency(gateway: () => Promise<unknown>, direct: () => Promise<unknown>, n: number) {
  const gatewayMs: number[] = [];
  const directMs: number[] = [];
  const difference: number[] = [];
  for (let i = 0; i < n; i++) {
    const gatewayFirst = i % 2 === 0;
    const first = await time(gatewayFirst ? gateway : direct);
    const second = await time(gatewayFirst ? direct : gateway);
    gatewayMs.push(gatewayFirst ? first : second);
    directMs.push(gatewayFirst ? second : first);
    difference.push((gatewayFirst ? first : second) - (gatewayFirst ? second : first));
  }
  const g = summary(gatewayMs);
  const d = summary(directMs);
  return {
    gateway: g,
    direct: d,
    overheadP50Ms: round(g.p50Ms - d.p50Ms),
    overheadP95Ms: round(g.p95Ms - d.p95Ms),
    overheadP99Ms: round(g.p99Ms - d.p99Ms),
    pairedDifference: summary(difference),
  };
}

async function cpuMsPerCall(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < CPU_CALLS; i++) await fn();
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / CPU_CALLS);
}

async function throughput(fn: () => Promise<unknown>): Promise<number> {
  let done = 0;
  const until = performance.now() + THROUGHPUT_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await fn();
        done++;
      }
    }),
  );
  return Math.round(done / THROUGHPUT_SECONDS);
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
let requestId = 0;

/**
 * tools/call service_recall over HTTP, framed as `revision` frames it; rejects unless the answer
 * carries structuredContent.
 */
function callRecallTool(
  baseUrl: string,
  token: string,
  accept = "application/json",
  revision: Revision = "2025-06-18",
): Promise<string> {
  const endpoint = new URL(`${baseUrl}/api/mcp/v1`);
  const stateless = revision === "2026-07-28";
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: ++requestId,
    method: "tools/call",
    params: {
      name: "service_recall",
      arguments: QUERY,
      ...(stateless
        ? {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": revision,
              "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          }
        : {}),
    },
  });
  return new Promise<string>((resolve, reject) => {
    const req = request(
      {
        agent,
        host: endpoint.hostname,
        port: endpoint.port,
        path: endpoint.pathname,
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          accept,
          "mcp-protocol-version": revision,
          ...(stateless ? { "mcp-method": "tools/call", "mcp-name": "service_recall" } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode === 200 && text.includes('"structuredContent"')) resolve(text);
          else reject(new Error(`gateway: ${res.statusCode} ${text.slice(0, 300)}`));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const TOPICS = ["budget", "logistics", "hiring", "roadmap", "pricing", "security", "onboarding", "release"];
const WORDS = [
  "review",
  "project",
  "quarterly",
  "client",
  "meeting",
  "decision",
  "owner",
  "deadline",
  "risk",
];

const models = switchableModels();
const service = await startTestService({ models, worker: false });
try {
  const tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  const headers = { authorization: `Bearer ${tenant.token}` };
  const seeded = performance.now();
  for (let i = 0; i < MEMORIES; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const words = Array.from({ length: 40 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(" ");
    await service.clients.ingest.storeMemory(
      { title: `${topic} note ${i}`, content: `Notes on ${topic} ${i}: ${words}.` },
      { headers },
    );
  }
  log(`seeded ${MEMORIES} memories in ${Math.round(performance.now() - seeded)} ms`);
  // The worker compacts the one-row fragments of single writes (off in this bench): do it here, or
  // every recall scans hundreds of fragments and the end-to-end figures describe an unmaintained table.
  await maintainVectorTable(service.storage.vectors, tenant.tenantId, models.embedder.id, {
    maxFragments: 1,
  });

  const grpc = createClient(RecallService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  const direct = () => service.clients.recall.recall(QUERY, { headers });
  const viaGateway = () => callRecallTool(service.httpUrl, tenant.token);
  const viaGatewaySse = () => callRecallTool(service.httpUrl, tenant.token, "text/event-stream");
  const overGrpc = () => grpc.recall(QUERY, { headers });

  const recorded: RecallResponse = await direct();
  // Measured now: a keep-alive socket idle past the server's timeout would reset if reused later.
  const answerBytes = (await viaGateway()).length;
  log(`recall returns ${recorded.hits.length} hits, ${answerBytes} bytes through the gateway`);
  for (let i = 0; i < WARMUP; i++) {
    await viaGateway();
    await viaGatewaySse();
    await direct();
    await overGrpc();
  }
  const loadBefore = loadavg()[0] ?? 0;

  log(`end to end: ${ITERATIONS} pairs`);
  const endToEnd = await pairedLatency(viaGateway, direct, ITERATIONS);
  const sse: number[] = [];
  const grpcMs: number[] = [];
  for (let i = 0; i < Math.ceil(ITERATIONS / 4); i++) {
    sse.push(await time(viaGatewaySse));
    grpcMs.push(await time(overGrpc));
  }
  const endToEndRps = {
    mcpGateway: await throughput(viaGateway),
    coreInProcess: await throughput(direct),
    coreOverGrpc: await throughput(overGrpc),
  };

  // The same edge (all its hooks) and gateway in front of a core answering the recorded hits.
  const stubClients = createCoreClients(
    createRouterTransport((router) => router.service(RecallService, { recall: () => recorded })),
  );
  const stubEdge = await createEdge({
    clients: stubClients,
    logger: createLogger("silent"),
    version: "bench",
    trustProxy: false,
    corsOrigins: [],
  });
  await stubEdge.listen({ host: "127.0.0.1", port: 0 });
  const stubUrl = `http://127.0.0.1:${(stubEdge.server.address() as AddressInfo).port}`;
  const stubGateway = () => callRecallTool(stubUrl, tenant.token);
  const stubDirect = () => stubClients.recall.recall(QUERY, { headers });
  for (let i = 0; i < WARMUP * 10; i++) {
    await stubGateway();
    await stubDirect();
  }
  log(`isolated: ${ISOLATED_ITERATIONS} pairs`);
  const isolated = await pairedLatency(stubGateway, stubDirect, ISOLATED_ITERATIONS);
  const isolatedCpu = {
    mcpGateway: await cpuMsPerCall(stubGateway),
    coreInProcess: await cpuMsPerCall(stubDirect),
  };
  const isolatedRps = {
    mcpGateway: await throughput(stubGateway),
    coreInProcess: await throughput(stubDirect),
  };
  // One row per revision, each paired against the in-process core call.
  const revisions: Record<string, unknown> = {};
  for (const revision of REVISIONS) {
    const call = () => callRecallTool(stubUrl, tenant.token, "application/json", revision);
    for (let i = 0; i < WARMUP * 4; i++) await call();
    log(`revision ${revision}: ${REVISION_ITERATIONS} pairs`);
    const paired = await pairedLatency(call, stubDirect, REVISION_ITERATIONS);
    revisions[revision] = {
      call:
        revision === "2026-07-28"
          ? "stateless tools/call (_meta, Mcp-Method, Mcp-Name)"
          : "tools/call in a session",
      gateway: paired.gateway,
      coreInProcess: paired.direct,
      overheadP50Ms: paired.overheadP50Ms,
      overheadP95Ms: paired.overheadP95Ms,
    };
  }
  await stubEdge.close();
  const loadAfter = loadavg()[0] ?? 0;

  const result = {
    target: "gateway overhead under 2 ms p50 (tools/call service_recall vs RecallService.Recall on core)",
    setup: {
      memories: MEMORIES,
      hitsPerRecall: recorded.hits.length,
      answerBytes,
      arguments: QUERY,
      iterations: { endToEnd: ITERATIONS, isolated: ISOLATED_ITERATIONS, cpuCalls: CPU_CALLS },
      embedder: models.embedder.id,
      httpClient: "node:http keep-alive, same process",
      throughput: { concurrency: CONCURRENCY, seconds: THROUGHPUT_SECONDS },
      loadAverage1m: { before: round(loadBefore), after: round(loadAfter) },
    },
    endToEnd: {
      latency: {
        mcpGatewayJson: endToEnd.gateway,
        mcpGatewaySse: summary(sse),
        coreInProcess: endToEnd.direct,
        coreOverGrpc: summary(grpcMs),
      },
      overheadP50Ms: endToEnd.overheadP50Ms,
      overheadP99Ms: endToEnd.overheadP99Ms,
      pairedDifference: endToEnd.pairedDifference,
      throughputRps: endToEndRps,
    },
    isolated: {
      latency: { mcpGatewayJson: isolated.gateway, coreInProcess: isolated.direct },
      overheadP50Ms: isolated.overheadP50Ms,
      overheadP99Ms: isolated.overheadP99Ms,
      pairedDifference: isolated.pairedDifference,
      cpuMsPerCall: { ...isolatedCpu, overhead: round(isolatedCpu.mcpGateway - isolatedCpu.coreInProcess) },
      throughputRps: isolatedRps,
    },
    revisions,
    passed: { endToEnd: endToEnd.overheadP50Ms < 2, isolated: isolated.overheadP50Ms < 2 },
  };
  log(JSON.stringify(result, null, 2));
  writeBenchResult("mcp", result);
} finally {
  agent.destroy();
  await service.stop();
}
