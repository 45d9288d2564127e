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
import {
  type NewMemory,
  type NewMemoryOutcome,
  type WriteNewMemoryDeps,
  writeNewMemories,
} from "../memories/index.js";
import { entryResult, newEntry } from "./store-memory.js";

const METHOD = "memory.v1.IngestService/StoreMemories";

/**
 * StoreMemories (docs/ingest.md "Batches"): every entry is checked as StoreMemory checks it, and the
 * valid ones are written as one batch by core/memories (writeNewMemories: all at once, in request
 * order, sharing the tenant's write transactions, the embedder's lane and the LanceDB group commit as
 * concurrent calls do, without a call's transport, authentication and rate-limit round trip per
 * memory). Each entry keeps its own outcome; the answer is one result per entry, in order.
 */
export async function storeMemories(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: StoreMemoriesRequest,
): Promise<StoreMemoriesResponse> {
  const entries = request.memories.map((entry): PromiseSettledResult<NewMemory> => {
    try {
      return { status: "fulfilled", value: newEntry(caller, entry) };
    } catch (error) {
      return { status: "rejected", reason: error };
    }
  });
  const valid = entries.flatMap((entry) => (entry.status === "fulfilled" ? [entry.value] : []));
  const written = await writeNewMemories(deps, valid);
  let next = 0;
  const results = entries.map((entry) => {
    if (entry.status === "rejected") return errorResult(deps, entry.reason);
    const outcome = written[next++] as PromiseSettledResult<NewMemoryOutcome>;
    return outcome.status === "fulfilled"
      ? { outcome: { case: "memory" as const, value: entryResult(deps, entry.value, outcome.value) } }
      : errorResult(deps, outcome.reason);
  });
  return create(StoreMemoriesResponseSchema, { results });
}

function errorResult(deps: WriteNewMemoryDeps, error: unknown) {
  return { outcome: { case: "error" as const, value: entryError(deps, error) } };
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
