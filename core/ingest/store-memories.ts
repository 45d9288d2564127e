import { create } from "@bufbuild/protobuf";
import { ErrorInfoSchema, PlanGateSchema } from "../../gen/memory/v1/errors_pb.js";
import {
  type BatchEntryError,
  BatchEntryErrorSchema,
  type StoreMemoriesRequest,
  type StoreMemoriesResponse,
  StoreMemoriesResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { toCoreError } from "../error-interceptor.js";
import type { WriteNewMemoryDeps } from "../memories/index.js";
import { coalesceEmbedCalls } from "../models/coalesce-embed-calls.js";
import { storeEntry } from "./store-memory.js";

const METHOD = "memory.v1.IngestService/StoreMemories";

/**
 * StoreMemories (docs/ingest.md "Batches"): every entry goes the way storeEntry takes for StoreMemory, all at once,
 * so the entries share the tenant's write transactions, the embedder's lane and the LanceDB group
 * commit as concurrent calls do — but without a call's transport, authentication and rate-limit
 * round trip per memory. Entries are started in request order, so of two entries with one title the
 * earlier is written first (the later then finds it: unchanged when byte-identical). Each entry keeps
 * its own outcome; the answer is one result per entry, in order.
 */
export async function storeMemories(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: StoreMemoriesRequest,
): Promise<StoreMemoriesResponse> {
  // The entries' embeddings as one call (a worker pool would count 100 calls as 100 jobs).
  const batchDeps = { ...deps, embedder: coalesceEmbedCalls(deps.embedder) };
  const results = await Promise.all(
    request.memories.map((entry) =>
      storeEntry(batchDeps, caller, entry).then(
        (memory) => ({ outcome: { case: "memory" as const, value: memory } }),
        (error: unknown) => ({ outcome: { case: "error" as const, value: entryError(deps, error) } }),
      ),
    ),
  );
  return create(StoreMemoriesResponseSchema, { results });
}

/** The error StoreMemory would have answered for this entry alone, as a status with its details. */
function entryError(deps: WriteNewMemoryDeps, error: unknown): BatchEntryError {
  const coreError = toCoreError(error, deps.logger, METHOD);
  const [info] = coreError.findDetails(ErrorInfoSchema);
  const [planGate] = coreError.findDetails(PlanGateSchema);
  return create(BatchEntryErrorSchema, {
    code: coreError.code,
    message: coreError.rawMessage,
    ...(info ? { info } : {}),
    ...(planGate ? { planGate } : {}),
  });
}
