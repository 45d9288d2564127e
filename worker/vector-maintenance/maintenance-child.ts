/**
 * The child process that runs vector-table upkeep (compaction, ANN index builds) for the worker
 * (maintenance-process.ts says why). It lowers its own priority before LanceDB starts its threads,
 * so they inherit it: on Linux a thread's niceness is its own, copied from the thread that made it.
 */
import { setPriority } from "node:os";
import type { MaintainOptions, MaintainResult } from "../../core/vectors/maintain-vector-table.js";

export interface MaintainRequest {
  readonly id: number;
  readonly tenantId: string;
  readonly space: string;
  readonly options: MaintainOptions;
}
export type MaintainReply =
  | { readonly id: number; readonly result: MaintainResult }
  | { readonly id: number; readonly error: string };

const [uri, niceness] = process.argv.slice(2);
if (uri === undefined || process.send === undefined) throw new Error("run by maintenance-process.ts only");
try {
  setPriority(Number(niceness ?? 10));
} catch {
  // Not allowed to (a container without the capability is still allowed to lower; never fatal).
}
const { openVectorStore, METADATA_CACHE_BYTES } = await import("../../core/vectors/lancedb-vector-store.js");
const { maintainVectorTable } = await import("../../core/vectors/maintain-vector-table.js");
// Upkeep never searches: a small index cache; manifests as the serving connection keeps them.
const vectors = await openVectorStore(uri, {
  indexCacheBytes: 64 * 2 ** 20,
  metadataCacheBytes: METADATA_CACHE_BYTES,
});
const send = (reply: MaintainReply) => process.send?.(reply);

process.on("message", (request: MaintainRequest) => {
  maintainVectorTable(vectors, request.tenantId, request.space, request.options).then(
    (result) => send({ id: request.id, result }),
    (error: unknown) =>
      send({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The parent went away (killed, crashed): nothing left to serve.
process.on("disconnect", () => process.exit(0));
