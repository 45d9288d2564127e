import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  type StoreMemoryRequest,
  StoreMemoryRequestSchema,
  type StoreMemoryResponse,
  StoreMemoryResponseSchema,
} from "../gen/memory/v1/ingest_service_pb.js";
import { ingestClient } from "../test/ingest/ingest-test-kit.js";

// The importing client of `npm run bench:bulk-ingest`, in a process of its own (as an importer is):
// the service's event loop serves the calls instead of also making them. Reads
// {grpcUrl, token, contents, concurrency, client, batch} as JSON from stdin, stores content i as
// "Notiz i" through IngestService.StoreMemory from `concurrency` callers — or, with `batch` > 1,
// through IngestService.StoreMemories in batches of that many entries (connect client) — and prints
// START when its calls begin, then {chunks, ms, cpuMs, marks} (its own CPU during the calls; the time
// at every 10,000 stored memories) as one JSON line.
// `client`: "connect" (@connectrpc/connect-node, the default) or "grpc-js" (@grpc/grpc-js, the official
// gRPC library) — on a shared 2-core machine the client's own CPU is taken from the service.

interface Job {
  readonly grpcUrl: string;
  readonly token: string;
  readonly contents: readonly string[];
  readonly concurrency: number;
  readonly client?: "connect" | "grpc-js";
  readonly batch?: number;
}

type Store = (request: { title: string; content: string }) => Promise<StoreMemoryResponse>;

function connectStore(job: Job): Store {
  const client = ingestClient({ grpcUrl: job.grpcUrl }, job.token);
  return (request) => client.storeMemory(request);
}

function grpcJsStore(job: Job): Store {
  const client = new grpc.Client(new URL(job.grpcUrl).host, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${job.token}`);
  return (request) =>
    new Promise((resolve, reject) => {
      client.makeUnaryRequest<StoreMemoryRequest, StoreMemoryResponse>(
        "/memory.v1.IngestService/StoreMemory",
        (message) => Buffer.from(toBinary(StoreMemoryRequestSchema, message)),
        (bytes) => fromBinary(StoreMemoryResponseSchema, bytes),
        create(StoreMemoryRequestSchema, request),
        metadata,
        (error, response) =>
          error || !response ? reject(error ?? new Error("no response")) : resolve(response),
      );
    });
}

let input = "";
for await (const part of process.stdin) input += String(part);
const job = JSON.parse(input) as Job;
let chunks = 0;
let next = 0;
// Progress marks every 10,000 stored memories (issue 46: the rate must not fall as the workspace grows).
const MARK_EVERY = 10_000;
const marks: { memories: number; ms: number }[] = [];
let stored = 0;
let started = 0;
function count(n: number): void {
  const before = Math.floor(stored / MARK_EVERY);
  stored += n;
  if (Math.floor(stored / MARK_EVERY) > before)
    marks.push({ memories: stored, ms: performance.now() - started });
}

/** One caller storing entry after entry through StoreMemory. */
async function storeOneByOne(store: Store): Promise<void> {
  for (let i = next++; i < job.contents.length; i = next++) {
    const { memory } = await store({ title: `Notiz ${i}`, content: job.contents[i] ?? "" });
    chunks += memory?.chunksWritten ?? 0;
    count(1);
  }
}

/** One caller storing `batch` entries per StoreMemories call. */
async function storeInBatches(batch: number): Promise<void> {
  const client = ingestClient({ grpcUrl: job.grpcUrl }, job.token);
  for (let from = next; from < job.contents.length; from = next) {
    next = Math.min(job.contents.length, from + batch);
    const memories = job.contents
      .slice(from, next)
      .map((content, j) => ({ title: `Notiz ${from + j}`, content }));
    const { results } = await client.storeMemories({ memories });
    for (const { outcome } of results) {
      if (outcome.case !== "memory") throw new Error(`entry refused: ${outcome.value?.message}`);
      chunks += outcome.value.chunksWritten;
    }
    count(memories.length);
  }
}

const batch = job.batch ?? 1;
const store = job.client === "grpc-js" ? grpcJsStore(job) : connectStore(job);
// The parent takes its CPU snapshots between this line and the result line.
process.stdout.write("START\n");
const cpuBefore = process.cpuUsage();
started = performance.now();
await Promise.all(
  Array.from({ length: job.concurrency }, () => (batch > 1 ? storeInBatches(batch) : storeOneByOne(store))),
);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${JSON.stringify({ chunks, ms, cpuMs: (cpu.user + cpu.system) / 1000, marks })}\n`);
process.exit(0);
