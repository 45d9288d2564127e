import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type RunningService, startService } from "../../apps/start-service.js";
import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import type { PlanName, Scope } from "../../core/auth/principal.js";
import type { Models } from "../../core/models/load-models.js";
import type { LimitsOverride } from "../../core/plans/plans.js";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { TEST_LEXICON_CACHE_DIR } from "./lexicon-cache.js";
import { createTestDatabase, type TestDatabase } from "./test-database.js";

export interface TestTenant {
  readonly tenantId: string;
  readonly slug: string;
  /** Clear-text API token with the requested scopes. */
  readonly token: string;
  readonly tokenId: string;
  /** Issues another token for this tenant. */
  issueToken(scopes: Scope[], name?: string): Promise<{ token: string; id: string }>;
}

export interface TestService extends RunningService {
  readonly database: TestDatabase;
  readonly dataDir: string;
  /** Log lines written so far (only when started with captureLogs). */
  readonly logLines: string[];
  createTenant(options?: {
    plan?: PlanName;
    scopes?: Scope[];
    /** Defaults to a high rate limit so tests are not throttled unless they ask to be. */
    limitsOverride?: LimitsOverride;
  }): Promise<TestTenant>;
}

export interface TestServiceOptions {
  /** Extra environment for loadConfig (e.g. EMBEDDING_PROVIDER). */
  env?: Record<string, string>;
  models?: Models;
  /** Run the background worker in process (default true). */
  worker?: boolean;
  /** Keep log output in `logLines` (default: silent). */
  captureLogs?: boolean;
  /** Rewrites the database URL the service uses (e.g. through a TcpProxy). */
  mapDatabaseUrl?: (url: string) => string;
}

let tenantCounter = 0;

/**
 * The real service (storage, core, gRPC server, HTTP edge, worker) on ephemeral ports, against a
 * fresh database and data directory of its own. `stop()` also drops both.
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "memory-test-"));
  const logLines: string[] = [];
  const config = loadConfig({
    DATABASE_URL: options.mapDatabaseUrl ? options.mapDatabaseUrl(database.url) : database.url,
    DATA_DIR: dataDir,
    PORT: "0",
    GRPC_PORT: "0",
    LOG_LEVEL: options.captureLogs ? "debug" : "silent",
    WORKER: options.worker === false ? "false" : "true",
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    ...options.env,
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const service = await startService({
    config,
    logger,
    version: "0.0.0-test",
    ...(options.models ? { models: options.models } : {}),
  }).catch(async (error: unknown) => {
    // startService stopped what it started; the database and directory are this helper's.
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...service,
    database,
    dataDir,
    logLines,
    async createTenant(tenantOptions = {}) {
      tenantCounter++;
      const slug = `t${process.pid}-${tenantCounter}-${Math.random().toString(36).slice(2, 8)}`;
      const tenant = await createTenant(service.storage.db.sql, {
        slug,
        name: `Test tenant ${tenantCounter}`,
        plan: tenantOptions.plan ?? "api",
        limitsOverride: tenantOptions.limitsOverride ?? { requestsPerMinutePerToken: 100_000 },
      });
      const issue = async (scopes: Scope[], name = "test token") => {
        const issued = await issueApiToken(service.storage.db.sql, { tenantId: tenant.id, name, scopes });
        return { token: issued.token, id: issued.id };
      };
      const first = await issue(tenantOptions.scopes ?? ["read", "write", "admin"]);
      return { tenantId: tenant.id, slug, token: first.token, tokenId: first.id, issueToken: issue };
    },
    async stop() {
      await service.stop();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 50, what = "condition" } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
