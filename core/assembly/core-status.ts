import { embeddingSpaceCheck } from "../status/embedding-space-check.js";
import { createStatusService } from "../status/status-service.js";
import type { CoreOptions } from "./core-options.js";

export const SERVICE_NAME = "memory-service";

/** StatusService over the process's components: database, vector store, worker, embedder, reranker. */
export function createCoreStatus(options: CoreOptions): ReturnType<typeof createStatusService> {
  const { db, vectors } = options;
  return createStatusService({
    service: SERVICE_NAME,
    version: options.version,
    embeddingProvider: () => options.embedder.id,
    reranker: () => options.reranker?.id ?? "none",
    components: [
      {
        name: "database",
        optional: false,
        check: async () =>
          (await db.ping()) ? { status: "ok", detail: "" } : { status: "down", detail: "no answer" },
      },
      {
        name: "vector_store",
        optional: false,
        check: async () =>
          (await vectors.ping())
            ? { status: "ok", detail: vectors.uri }
            : { status: "down", detail: "no answer" },
      },
      options.workerCheck,
      {
        name: "embedder",
        optional: false,
        check: async () => ({
          status: "ok",
          detail: `${options.embedder.id} (${options.embedder.dim} dims)`,
        }),
      },
      {
        name: "reranker",
        optional: true,
        check: async () => ({ status: "ok", detail: options.reranker?.id ?? "none" }),
      },
    ],
    tenantComponents: (tenantId) => [embeddingSpaceCheck(db, tenantId, options.embedder.id)],
  });
}
