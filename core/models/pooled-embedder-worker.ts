import { parentPort, workerData } from "node:worker_threads";
import { lowerThreadPriority } from "../../lib/lower-thread-priority.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import {
  type FromWorker,
  type PoolWorkerData,
  serializeError,
  type ToWorker,
} from "./pooled-embedder-protocol.js";
import { isRecord } from "./read-json-file.js";

/**
 * Runs inside a pool worker: creates one provider with the configured factory and embeds the batches the
 * pool sends, one at a time. Vectors are transferred, not copied.
 */
const port = parentPort;
if (port === null) throw new Error("pooled-embedder-worker must run in a worker thread");
const data = workerData as PoolWorkerData;
if (data.niceness !== undefined) lowerThreadPriority(data.niceness);
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

const provider = await createProvider(data).catch((error: unknown) => {
  send({ type: "failed", error: serializeError(error) });
  return undefined;
});

if (provider === undefined) port.close();
else send({ type: "ready", id: provider.id, dim: provider.dim });

port.on("message", async (message: ToWorker) => {
  if (provider === undefined) return;
  if (message.type === "close") {
    await provider.close?.();
    port.close();
    return;
  }
  try {
    const vectors = await provider.embed(message.texts, message.purpose);
    send({ type: "result", job: message.job, vectors }, transferables(vectors));
  } catch (error) {
    send({ type: "error", job: message.job, error: serializeError(error) });
  }
});

async function createProvider({
  moduleUrl,
  exportName,
  options,
}: PoolWorkerData): Promise<EmbeddingProvider> {
  const module: unknown = await import(moduleUrl);
  const factory = isRecord(module) ? module[exportName] : undefined;
  if (typeof factory !== "function")
    throw new Error(`${moduleUrl} does not export a function "${exportName}"`);
  const created: unknown = await factory(options);
  if (!isProvider(created)) throw new Error(`${exportName}() did not return an EmbeddingProvider`);
  return created;
}

function isProvider(value: unknown): value is EmbeddingProvider {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.dim === "number" &&
    typeof value.embed === "function"
  );
}

/** Each distinct (non-shared) buffer once: vectors may be views into one buffer. */
function transferables(vectors: readonly Float32Array[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const vector of vectors) if (vector.buffer instanceof ArrayBuffer) buffers.add(vector.buffer);
  return [...buffers];
}
