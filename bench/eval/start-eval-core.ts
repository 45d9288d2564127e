import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRouterTransport } from "@connectrpc/connect";
import postgres from "postgres";
import { createShutdown } from "../../apps/shutdown.js";
import { startConfiguredWorker } from "../../apps/start-worker.js";
import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { createCore } from "../../core/create-core.js";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { loadModels, type Models } from "../../core/models/load-models.js";
import type { Bm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { type Storage, startStorage } from "../../core/start-storage.js";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { type CoreClients, createCoreClients } from "../../gateway-kit/core-clients.js";
import { createServiceMetrics } from "../../lib/metrics/service-metrics.js";

/**
 * Core as the product composes it — storage (PostgreSQL, LanceDB), the configured models, every
 * service with its interceptors (auth, rate limits, validation), and its worker — reached through the in-process
 * Connect transport the gateways use. The eval and the recall bench ingest and recall through it.
 */
export interface EvalCore {
  readonly clients: CoreClients;
  readonly storage: Storage;
  readonly models: Models;
  readonly lexicon: Lexicon;
  /** Core's in-process BM25 indexes (undefined with bm25Index "sql"). */
  readonly bm25Index: Bm25IndexCache | undefined;
  /** A fresh workspace with an API token (read + write), unthrottled. */
  createTenant(label: string): Promise<{ tenantId: string; headers: Record<string, string> }>;
  stop(): Promise<void>;
}

export interface EvalCoreOptions {
  /** Admin URL of a PostgreSQL server to create a fresh database on; unset: embedded PostgreSQL. */
  readonly databaseUrl?: string | undefined;
  /** Lexicon cache directory shared between runs (parsing the dictionaries takes a minute). */
  readonly lexiconCache: string;
  /** Reranker: the built-in one (default) or none. */
  readonly reranker?: "builtin" | "none";
  /**
   * Run the service's worker beside core (default true), so ingest goes through the same path as in
   * the product: inline indexing, queued documents and vector-table maintenance (compaction, version
   * pruning, the ANN index) done by the worker's jobs (issue #23).
   */
  readonly worker?: boolean;
  /** Recall's BM25 source (BM25_INDEX): the in-process index (default) or the SQL postings. */
  readonly bm25Index?: "memory" | "sql";
  /** Recall's pseudo-relevance feedback (RECALL_PRF, ADR 0570); default as configured (off). */
  readonly prf?: boolean;
}

export async function startEvalCore(options: EvalCoreOptions): Promise<EvalCore> {
  const dataDir = await mkdtemp(join(tmpdir(), "memory-eval-"));
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  if (options.databaseUrl !== undefined) {
    const name = `memory_eval_${randomBytes(5).toString("hex")}`;
    const admin = postgres(options.databaseUrl, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const url = new URL(options.databaseUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const again = postgres(options.databaseUrl ?? "", { max: 1, onnotice: () => undefined });
      await again.unsafe(`drop database if exists "${name}" with (force)`);
      await again.end();
    };
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    EMBEDDED_PG_PORT: String(20000 + Math.floor(Math.random() * 20000)),
    RERANKER: options.reranker === "none" ? "none" : "builtin",
    BM25_INDEX: options.bm25Index ?? "memory",
    ...(options.prf === undefined ? {} : { RECALL_PRF: String(options.prf) }),
    ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
  });
  const logger = createLogger("warn");
  const storage = await startStorage(config, logger);
  const models = await loadModels(config, logger, { lexiconCacheDirectory: options.lexiconCache });
  const { reranker } = models;
  const lexicon = models.lexicon ?? createEmptyLexicon();
  const core = createCore({
    db: storage.db,
    vectors: storage.vectors,
    embedder: models.embedder,
    reranker,
    lexicon,
    thesaurus: models.thesaurus,
    logger,
    version: "eval",
    publicUrl: config.publicUrl,
    trustClientIp: true,
    workerCheck: { name: "worker", optional: true, check: async () => ({ status: "ok", detail: "eval" }) },
    bm25Index: config.bm25Index,
    recallPrf: config.recallPrf,
  });
  const shutdown = createShutdown(logger);
  if (options.worker !== false)
    await startConfiguredWorker(config, storage, models, logger, shutdown, createServiceMetrics());
  const clients = createCoreClients(
    createRouterTransport(core.routes, { router: { interceptors: core.inProcessInterceptors } }),
  );
  let counter = 0;
  return {
    clients,
    storage,
    models,
    lexicon,
    bm25Index: core.bm25Index,
    async createTenant(label) {
      counter++;
      const slug = `eval-${label.replace(/[^a-z0-9]+/g, "-").slice(0, 40)}-${counter}-${randomBytes(3).toString("hex")}`;
      const tenant = await createTenant(storage.db.sql, {
        slug,
        name: `eval ${label}`,
        plan: "api",
        limitsOverride: {
          requestsPerMinutePerToken: 10_000_000,
          memoryLimit: null,
          mcpRequestsPerMinutePerIp: null,
        },
      });
      const { token } = await issueApiToken(storage.db.sql, {
        tenantId: tenant.id,
        name: "eval",
        scopes: ["read", "write"],
      });
      return { tenantId: tenant.id, headers: { authorization: `Bearer ${token}` } };
    },
    async stop() {
      await shutdown.stopAll();
      await core.close();
      await models.close();
      await storage.stop();
      await dropDatabase?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
