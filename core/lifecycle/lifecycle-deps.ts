import type { Logger } from "../../config/logger.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { Database } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";

/** What erasure and import need (docs/erasure.md, docs/export.md "Import"). */
export interface LifecycleDeps {
  readonly db: Database;
  readonly vectors: VectorStore;
  /** Import re-embeds every chunk with the workspace's embedder. */
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
  /** How long after an erasure the worker purges old vector versions (VECTOR_PURGE_DELAY_MS). */
  readonly purgeDelayMs: number;
  /** For the plan-gate body when a bundle exceeds the plan's memory limit. */
  readonly upgradeUrl: string;
  /** Drops this process's cached token lookups of an erased workspace, so they fail at once. */
  readonly forgetTenant?: (tenantId: string) => void;
  /** Scrubs the tenant's erased chunks from this process's in-memory BM25 index (ADR 0230). */
  readonly onChunksErased?: (tenantId: string) => Promise<void> | undefined;
  /** Ends the workspace's paid subscription before its rows go (unset: payments not configured). */
  readonly cancelSubscription?: (tenantId: string) => Promise<boolean>;
}
