import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { insertOutboxEvent } from "../core/memories/index.js";
import { testModels } from "../test/graph/graph-test-kit.js";
import { startTestService, type TestService, waitFor } from "../test/helpers/test-service.js";
import { type HttpsReceiver, startHttpsReceiver } from "../test/webhooks/https-receiver.js";
import { MASTER_KEY, sessionApi, subscribe } from "../test/webhooks/webhook-test-kit.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:webhooks` (issue 17 "Measure"): outgoing webhook deliveries to a local HTTPS
// receiver by 2 worker processes (test/webhooks/dispatcher-process.ts: the dispatcher as the worker
// composes it, production lease and timeout).
//   backlog  5,000 memory.created events committed while no worker runs, then both workers start:
//            deliveries/s from the first to the last receipt, and commit→receipt (mostly queueing).
//   stream   with the workers running, events committed in small transactions at a steady rate:
//            commit→receipt p50/p99, the latency a receiver sees in normal operation.
// Events are written with insertOutboxEvent, the call ingest makes in its transaction, so what is
// measured is the webhook path (outbox → fan-out → claim → sign → HTTPS → record), not embedding.
// Checks: every event received, no delivery id received twice. Needs PostgreSQL like `npm test`.

const BACKLOG = Number(process.argv[2] ?? 5000);
const STREAM_EVENTS = Number(process.argv[3] ?? 1000);
const STREAM_RATE = Number(process.argv[4] ?? 200);
const WORKERS = 2;

const log = (line: string) => process.stdout.write(`${line}\n`);
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

let service: TestService | undefined;
let receiver: HttpsReceiver | undefined;
const workers: ChildProcess[] = [];

function startWorker(databaseUrl: string, caFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/webhooks/dispatcher-process.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      MASTER_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_CA_FILE: caFile,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.push(child);
  return new Promise((resolve) => child.stdout?.once("data", () => resolve(child)));
}

try {
  receiver = await startHttpsReceiver(tmpdir());
  const rx = receiver;
  rx.answer = () => ({ status: 204 });
  service = await startTestService({
    models: testModels(),
    worker: false,
    env: { MASTER_KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_CA_FILE: rx.caFile },
  });
  const svc = service;
  const tenant = await svc.createTenant({ plan: "team" });
  const { secret } = await subscribe(await sessionApi(svc, tenant), rx.url, ["memory.created"]);
  rx.secrets.push(secret);
  const committedAt = new Map<string, number>();

  async function commitEvents(n: number): Promise<void> {
    const ids = Array.from({ length: n }, () => randomUUID());
    await svc.storage.db.withTenant(tenant.tenantId, async (tx) => {
      for (const id of ids) {
        await insertOutboxEvent(tx, tenant.tenantId, "memory.created", {
          documentId: id,
          title: `Bench ${id}`,
          chunksWritten: 1,
        });
      }
    });
    const at = Date.now();
    for (const id of ids) committedAt.set(id, at);
  }
  const documentId = (raw: string) => (JSON.parse(raw) as { data: { documentId: string } }).data.documentId;
  const latencies = (from: number) =>
    rx.received.slice(from).map((w) => w.receivedAt - (committedAt.get(documentId(w.rawBody)) ?? Number.NaN));

  // Backlog: 5,000 pending events, then two workers.
  for (let i = 0; i < BACKLOG; i += 500) await commitEvents(Math.min(500, BACKLOG - i));
  log(`backlog of ${BACKLOG} events committed; starting ${WORKERS} worker processes`);
  const load = loadavg()[0];
  const receiverCpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: WORKERS }, () => startWorker(svc.database.url, rx.caFile)));
  // Start-up (tsx compiling the worker) is not delivery work.
  const workerCpuAtStart = workers.reduce((sum, w) => sum + cpuSeconds(w.pid), 0);
  await waitFor(() => (rx.received.length >= BACKLOG ? true : undefined), {
    timeoutMs: 300_000,
    intervalMs: 100,
    what: "the backlog delivered",
  });
  const first = rx.received[0]?.receivedAt ?? 0;
  const last = rx.received[BACKLOG - 1]?.receivedAt ?? 0;
  const backlogRate = Math.round((BACKLOG - 1) / ((last - first) / 1000));
  const backlogLatency = latencies(0);
  // CPU per delivery, whatever else the machine runs: the worker processes, PostgreSQL backends of
  // this database (claims, recording, fan-out), and the receiver (this process: TLS and HMAC checks).
  const workerCpu = workers.reduce((sum, w) => sum + cpuSeconds(w.pid), 0) - workerCpuAtStart;
  const backends = await svc.storage.db.sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  const postgresCpu = backends.reduce((sum, b) => sum + cpuSeconds(b.pid), 0);
  const receiverUsage = process.cpuUsage(receiverCpuBefore);
  const receiverCpu = (receiverUsage.user + receiverUsage.system) / 1e6;
  const perDeliveryMs = (seconds: number) => Math.round((seconds / BACKLOG) * 1000 * 100) / 100;
  const cpu = {
    workersMsPerDelivery: perDeliveryMs(workerCpu),
    postgresMsPerDelivery: perDeliveryMs(postgresCpu),
    receiverMsPerDelivery: perDeliveryMs(receiverCpu),
  };
  log(`cpu per delivery: ${JSON.stringify(cpu)}`);
  log(`backlog: ${backlogRate} deliveries/s over ${last - first} ms`);

  // Stream: steady commits with the workers running.
  const streamFrom = rx.received.length;
  const perTx = 10;
  const streamStart = Date.now();
  for (let sent = 0; sent < STREAM_EVENTS; sent += perTx) {
    await commitEvents(perTx);
    const due = streamStart + ((sent + perTx) / STREAM_RATE) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
  }
  await waitFor(() => (rx.received.length >= BACKLOG + STREAM_EVENTS ? true : undefined), {
    timeoutMs: 120_000,
    intervalMs: 50,
    what: "the stream delivered",
  });
  const streamLatency = latencies(streamFrom);

  const ids = rx.received.map((w) => w.deliveryId);
  const duplicates = ids.length - new Set(ids).size;
  const receivedDocs = new Set(rx.received.map((w) => documentId(w.rawBody)));
  const lost = [...committedAt.keys()].filter((id) => !receivedDocs.has(id)).length;
  const unsigned = rx.received.filter((w) => w.signedWith < 0).length;
  const result = {
    workers: WORKERS,
    backlog: {
      events: BACKLOG,
      deliveriesPerSecond: backlogRate,
      commitToReceiptMs: { p50: percentile(backlogLatency, 50), p99: percentile(backlogLatency, 99) },
      note: "all events committed before the workers started: latency is queueing behind the backlog",
      cpu,
    },
    stream: {
      events: STREAM_EVENTS,
      committedPerSecond: STREAM_RATE,
      commitToReceiptMs: { p50: percentile(streamLatency, 50), p99: percentile(streamLatency, 99) },
    },
    lost,
    duplicateDeliveries: duplicates,
    badSignatures: unsigned,
    loadAverageAtStart: load,
    targets: { deliveriesPerSecond: 500, p50Ms: 1000 },
  };
  log(JSON.stringify(result, null, 2));
  writeBenchResult("webhooks", result);
} finally {
  for (const w of workers) w.kill("SIGTERM");
  await service?.stop();
  await receiver?.close();
}
