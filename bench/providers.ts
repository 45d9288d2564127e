/**
 * `npm run bench:providers` (issue 18 "Measure"): 1,000 chunks through the BYOK provider path — the
 * client ingest and the re-embed job use (batching, two requests in flight, JSON out and in, L2
 * normalisation) — against the local fake provider server running in its own process. Reports:
 *
 * - overhead of the provider path over the fake server's own time: (client wall time − time during
 *   which the server had at least one request in hand) / that server time; target < 10 %;
 * - requests per batch of 64 chunks: target ≤ 1 (1,000 chunks = 16 batches → at most 16 requests).
 *
 * Runs with a fake model time per request of 0 ms (pure HTTP + JSON: the worst case for the ratio)
 * and 50 ms (a fast hosted embedder; real ones take 100–500 ms for 64 inputs).
 */
import { fork } from "node:child_process";
import { loadavg } from "node:os";
import { createProviderEmbedder } from "../core/models/http/create-provider-embedder.js";
import type { ProviderName } from "../core/models/http/provider-apis.js";
import { sharedOutboundGuard } from "../lib/net/outbound-guard.js";
import { writeBenchResult } from "./write-result.js";

const CHUNKS = 1000;
const ROUNDS = 5;
const KEY = "sk-bench-0123456789abcdef";
const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const epochNow = () => performance.timeOrigin + performance.now();

/** ~1,000-character chunks (a typical 250-token chunk), all different. */
const chunks = Array.from(
  { length: CHUNKS },
  (_, i) =>
    `Chunk ${i}: ` +
    "Die Speicherschicht behält, was der Assistent über Projekte, Menschen und Entscheidungen lernt. ".repeat(
      10,
    ),
);

interface Interval {
  start: number;
  end: number;
}

/** Milliseconds in which at least one request was in the server's hands. */
function unionMs(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let current: Interval | undefined;
  for (const interval of sorted) {
    if (current === undefined || interval.start > current.end) {
      if (current) total += current.end - current.start;
      current = { ...interval };
    } else current.end = Math.max(current.end, interval.end);
  }
  if (current) total += current.end - current.start;
  return total;
}

interface FakeProcess {
  readonly url: string;
  ask<T>(message: string): Promise<T>;
  close(): Promise<void>;
}

async function startFake(latencyMs: number): Promise<FakeProcess> {
  const child = fork(new URL("./fake-provider-process.ts", import.meta.url), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, FAKE_LATENCY_MS: String(latencyMs), FAKE_KEY: KEY },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`fake provider exited with ${code}`)));
  });
  return {
    url,
    ask: <T>(message: string) =>
      new Promise<T>((resolve) => {
        child.once("message", (m) => resolve(m as T));
        child.send(message);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.send("close");
      }),
  };
}

interface CaseResult {
  provider: ProviderName;
  fakeModelLatencyMs: number;
  chunks: number;
  requests: number;
  chunksPerRequest: number;
  batchesOf64: number;
  requestsPerBatchOf64: number;
  clientMedianMs: number;
  serverBusyMedianMs: number;
  overheadMedianPercent: number;
  overheadRangePercent: [number, number];
}

async function runCase(provider: ProviderName, latencyMs: number): Promise<CaseResult> {
  const fake = await startFake(latencyMs);
  try {
    const prefix = provider === "cohere" ? "" : `/${provider}/v1`;
    const embedder = await createProviderEmbedder({
      provider,
      apiKey: KEY,
      baseUrl: fake.url + prefix,
      guard: sharedOutboundGuard(true),
    });
    await embedder.embed(chunks.slice(0, 128), "passage"); // warm up JIT and keep-alive sockets
    const clientMs: number[] = [];
    const serverMs: number[] = [];
    const overheads: number[] = [];
    let requests = 0;
    for (let r = 0; r < ROUNDS; r++) {
      await fake.ask("reset");
      const started = epochNow();
      const vectors = await embedder.embed(chunks, "passage");
      const wall = epochNow() - started;
      if (vectors.length !== CHUNKS || vectors[0]?.length !== 1024) throw new Error("wrong answer");
      const { busy, requests: n } = await fake.ask<{ busy: Interval[]; requests: number }>("busy");
      const server = unionMs(busy);
      clientMs.push(wall);
      serverMs.push(server);
      overheads.push(((wall - server) / server) * 100);
      requests = n;
    }
    const result: CaseResult = {
      provider,
      fakeModelLatencyMs: latencyMs,
      chunks: CHUNKS,
      requests,
      chunksPerRequest: round(CHUNKS / requests),
      batchesOf64: Math.ceil(CHUNKS / 64),
      requestsPerBatchOf64: round(requests / Math.ceil(CHUNKS / 64), 2),
      clientMedianMs: round(median(clientMs)),
      serverBusyMedianMs: round(median(serverMs)),
      overheadMedianPercent: round(median(overheads)),
      overheadRangePercent: [round(Math.min(...overheads)), round(Math.max(...overheads))],
    };
    log(
      `${provider} model ${latencyMs} ms: ${requests} requests, client ${result.clientMedianMs} ms, ` +
        `server ${result.serverBusyMedianMs} ms, overhead ${result.overheadMedianPercent} %`,
    );
    return result;
  } finally {
    await fake.close();
  }
}

const loadBefore = loadavg()[0] ?? 0;
const cases: CaseResult[] = [];
for (const latency of [0, 50]) {
  for (const provider of ["openai", "cohere"] as const) cases.push(await runCase(provider, latency));
}
const realistic = cases.filter((c) => c.fakeModelLatencyMs > 0);
writeBenchResult("providers", {
  rounds: ROUNDS,
  loadAverage1m: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
  cases,
  targets: {
    overheadBelowPercent: 10,
    overheadMetWithModelTime: realistic.every((c) => c.overheadMedianPercent < 10),
    requestsPerBatchOf64AtMost: 1,
    requestsMet: cases.every((c) => c.requestsPerBatchOf64 <= 1),
  },
  note:
    "overhead = (client wall time − time the fake server, in its own process, had a request in hand) / " +
    "that server time. With 0 ms model time the server only serialises JSON, so the client's JSON " +
    "parsing of the same 1024-float vectors weighs as much as the server's work; with any real model " +
    "time it disappears in the wait. Load average above the core count means other processes shared the 2 cores.",
});
