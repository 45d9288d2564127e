import type { Logger } from "../../config/logger.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { Database } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";

/**
 * Test seams at the two points where a crash leaves PostgreSQL and LanceDB apart (the reconcile test
 * kills a process there). Production code passes none.
 */
export interface IndexingHooks {
  /** After the PostgreSQL transaction with the memory and its chunks committed, before LanceDB. */
  afterPostgresCommit?(memoryId: string): Promise<void>;
  /** After the vectors are in LanceDB, before the chunks are marked vector_stored. */
  afterVectorsStored?(memoryId: string): Promise<void>;
}

/** What writing and indexing memory versions needs: ingest, update_fact and the worker jobs. */
export interface MemoryDeps {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
  readonly hooks?: IndexingHooks;
}
