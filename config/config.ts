import { totalmem } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";

/** Whether the runtime knows the IANA time zone (Intl throws a RangeError for an unknown one). */
function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The one place that reads the environment. Each process's composition file calls `loadConfig()`
 * once and passes the pieces down; nothing else reads `process.env`.
 */

const port = z.coerce.number().int().min(0).max(65535);
const optionalUrl = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${protocols.join(" or ")}`,
    )
    .optional();
/**
 * One URL or a comma-separated list of them (CORE_URL: the core endpoints a gateway routes
 * workspaces over, ADR 0380): each must parse with one of the protocols, none may repeat.
 */
const optionalUrlList = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .superRefine((v, ctx) => {
      const urls = v.split(",").map((u) => u.trim());
      for (const [i, u] of urls.entries()) {
        let ok = false;
        try {
          ok = protocols.includes(new URL(u).protocol);
        } catch {
          ok = false;
        }
        if (!ok) {
          ctx.addIssue({
            code: "custom",
            message: `entry ${i + 1} must be a URL starting with ${protocols.join(" or ")}`,
          });
          return;
        }
      }
      if (new Set(urls.map((u) => new URL(u).href)).size !== urls.length) {
        ctx.addIssue({ code: "custom", message: "names the same URL twice" });
      }
    })
    .optional();
const flag = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off"])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

const stripePrice = z
  .string()
  .trim()
  .regex(/^price_[A-Za-z0-9_]{1,200}$/, "must be a Stripe price id (price_…)")
  .optional();

const envSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  PUBLIC_URL: optionalUrl(["http:", "https:"]),
  DATA_DIR: z.string().trim().min(1).default("./data"),
  DATABASE_URL: optionalUrl(["postgres:", "postgresql:"]),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  EMBEDDED_PG_PORT: port.default(54329),
  REDIS_URL: optionalUrl(["redis:", "rediss:"]),
  RATE_LIMIT_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, "letters, digits, ':', '_' and '-' only (at most 64)")
    .default("memory-service"),
  LANCEDB_URI: z.string().trim().min(1).optional(),
  CORE_URL: optionalUrlList(["http:", "https:"]),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: flag.default(false),
  CORS_ORIGINS: z.string().trim().optional(),
  SMTP_URL: optionalUrl(["smtp:", "smtps:"]),
  MAIL_FROM: z.string().trim().min(3).default("Memory Service <no-reply@localhost>"),
  MASTER_KEY: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "must be 32 bytes, base64 or base64url encoded")
    .optional(),
  /** Only for `npm run cli -- keys rotate-master`: the master key to re-seal provider keys under. */
  NEW_MASTER_KEY: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "must be 32 bytes, base64 or base64url encoded")
    .optional(),
  /** Lets provider keys name http:// and private-network base URLs (Ollama, TEI, vLLM on your own network). */
  PROVIDER_ALLOW_PRIVATE_URLS: flag.default(false),
  /**
   * Lets OAuth client ID metadata documents be fetched from private addresses and over http (a client
   * under development on your own machine or network; ADR 0400). Never in production.
   */
  OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: flag.default(false),
  EMBEDDING_PROVIDER: z.enum(["builtin", "onnx", "http"]).optional(),
  // Worker threads for the built-in embedder's passages; queries stay on the calling thread (0: all there).
  BUILTIN_EMBEDDER_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  EMBEDDING_MODEL_DIR: z.string().trim().min(1).optional(),
  EMBEDDING_URL: optionalUrl(["http:", "https:"]),
  EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  EMBEDDING_API_KEY: z.string().trim().min(1).optional(),
  EMBEDDING_DIM: z.coerce.number().int().min(1).max(1024).optional(),
  RERANKER: z.enum(["builtin", "onnx", "http", "none"]).optional(),
  RERANKER_MODEL_DIR: z.string().trim().min(1).optional(),
  RERANKER_URL: optionalUrl(["http:", "https:"]),
  RERANKER_MODEL: z.string().trim().min(1).optional(),
  RERANKER_API_KEY: z.string().trim().min(1).optional(),
  LEXICON_DIR: z.string().trim().min(1).default("/usr/share/dictd"),
  LEXICON_CACHE_DIR: z.string().trim().min(1).optional(),
  // docs/recall.md "Synonyms" (ADR 0520): a thesaurus file per language (.dat/.idx: MyThes, else the
  // OpenThesaurus text export) or "none"; unset: the Debian packages' files if installed.
  THESAURUS_DE: z.string().trim().min(1).optional(),
  THESAURUS_EN: z.string().trim().min(1).optional(),
  WORKER: flag.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  // ADR 0560: vector-table upkeep (compaction, ANN builds) in a child process at lower priority, or
  // "inline" in the worker's own process.
  VECTOR_MAINTENANCE: z.enum(["process", "inline"]).default("process"),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag.default(false),
  // docs/ingest.md "Web pages": FetchWebPage may reach private addresses (tests, closed networks);
  // its time limit for the whole fetch and its cap on a page's bytes.
  WEB_FETCH_ALLOW_PRIVATE_URLS: flag.default(false),
  WEB_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  WEB_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  WEBHOOK_CA_FILE: z.string().trim().min(1).optional(),
  // docs/rest.md "Timeouts": how long a gateway waits for core before answering 504 (a write then
  // names the Idempotency-Key that resolves it).
  CORE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // docs/erasure.md "Vacuum": how long after an erasure the worker removes old LanceDB versions.
  VECTOR_PURGE_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
  // docs/recall.md "BM25": recall's BM25 from the derived in-process index (ADR 0230) or the SQL
  // scorer over the chunks' tsvectors.
  BM25_INDEX: z.enum(["memory", "sql"]).default("memory"),
  // docs/recall.md "Pseudo-relevance feedback" (ADR 0570): a second BM25 pass with terms of the first
  // pass's best chunks. Off: measured, it did not help every set.
  RECALL_PRF: flag.default(false),
  // docs/recall.md "Time" (ADR 0620): the zone whose days, weeks and months "gestern" or "last week"
  // name. An IANA name the runtime knows; UTC by default.
  RECALL_TIME_ZONE: z
    .string()
    .trim()
    .refine(isTimeZone, { message: "RECALL_TIME_ZONE must be an IANA time zone such as Europe/Berlin" })
    .default("UTC"),
  // docs/scaling.md: one byte budget per process for all per-workspace derived state (BM25 indexes,
  // open vector tables; ADR 0370); default sized from the machine's memory. BM25_INDEX_BUDGET_MB is
  // its older name, from when the BM25 indexes had a budget of their own.
  WORKSPACE_STATE_BUDGET_MB: z.coerce.number().int().min(16).max(1_048_576).optional(),
  BM25_INDEX_BUDGET_MB: z.coerce.number().int().min(1).max(1_048_576).optional(),
  // ADR 0495: after a restart, how long a core waits for its hottest workspaces to be warm before it
  // listens (0: listen at once).
  STARTUP_WARM_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  STRIPE_SECRET_KEY: z.string().trim().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().min(1).optional(),
  // Price ids of Stripe, one per paid plan and billing period (price_…).
  STRIPE_PRICE_PLUS_MONTHLY: stripePrice,
  STRIPE_PRICE_PLUS_YEARLY: stripePrice,
  STRIPE_PRICE_PRO_MONTHLY: stripePrice,
  STRIPE_PRICE_PRO_YEARLY: stripePrice,
  STRIPE_PRICE_TEAM_MONTHLY: stripePrice,
  STRIPE_PRICE_TEAM_YEARLY: stripePrice,
  STRIPE_PRICE_API_MONTHLY: stripePrice,
  STRIPE_PRICE_API_YEARLY: stripePrice,
  // Where the Stripe SDK sends API calls; only for tests and local mocks (default: api.stripe.com).
  STRIPE_API_BASE: optionalUrl(["http:", "https:"]),
  // Self-hosted without payments: onboarding grants this plan to every new workspace.
  SELF_HOSTED_PLAN: z.enum(["free", "plus", "pro", "team", "api"]).optional(),
  // Prometheus metrics (docs/observability.md, ADR 0150): a loopback listener of their own, and/or
  // GET /metrics on the public edge for bearers of METRICS_TOKEN.
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().trim().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z.string().trim().min(16, "must be at least 16 characters").optional(),
  // OpenTelemetry tracing: spans are exported over OTLP/HTTP only when the endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(["http:", "https:"]),
  OTEL_SERVICE_NAME: z.string().trim().min(1).default("memory-service"),
});

export type Env = z.infer<typeof envSchema>;

export type EmbeddingConfig =
  /** passageWorkers: BUILTIN_EMBEDDER_WORKERS, threads that embed passages (0: the calling thread). */
  | { kind: "builtin"; passageWorkers: number }
  | { kind: "onnx"; modelDir: string }
  | { kind: "http"; url: string; model: string; apiKey?: string; dim?: number };

export type RerankerConfig =
  | { kind: "builtin" }
  | { kind: "none" }
  | { kind: "onnx"; modelDir: string }
  | { kind: "http"; url: string; model?: string; apiKey?: string };

export interface Config {
  readonly env: Env;
  readonly host: string;
  readonly port: number;
  readonly grpcPort: number;
  readonly publicUrl: string;
  readonly dataDir: string;
  /** Unset: start an embedded PostgreSQL in `${dataDir}/pg`. */
  readonly databaseUrl?: string;
  readonly databasePoolSize: number;
  readonly embeddedPgPort: number;
  /** Unset: in-memory rate limiting. */
  readonly redisUrl?: string;
  /** Prefix of rate-limit keys in Redis, so services sharing one Redis keep separate counters. */
  readonly rateLimitPrefix: string;
  readonly lancedbUri: string;
  /**
   * Set: a gateway reaches separate cores over gRPC instead of in-process — one, or several it routes
   * workspaces over by rendezvous hashing (ADR 0380). Never empty when set.
   */
  readonly coreUrls?: readonly string[];
  readonly logLevel: Env["LOG_LEVEL"];
  readonly trustProxy: boolean;
  readonly corsOrigins: readonly string[];
  readonly smtpUrl?: string;
  readonly mailFrom: string;
  readonly masterKey?: string;
  /** PROVIDER_ALLOW_PRIVATE_URLS: BYOK base URLs may be http:// or private addresses. */
  readonly providerAllowPrivateUrls: boolean;
  /** OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: client ID metadata documents on private/http URLs. */
  readonly oauthClientMetadataAllowPrivateUrls: boolean;
  /** NEW_MASTER_KEY: read only by the key-rotation CLI command. */
  readonly newMasterKey?: string;
  readonly embedding: EmbeddingConfig;
  /** FreeDict dictionaries (read at run time, never copied) and where their parsed tables are cached. */
  readonly lexicon: { dictionaryDir: string; cacheDir: string };
  /** Thesaurus files per language (read at run time, never copied); unset: Debian's defaults. */
  readonly thesaurus: { readonly de?: string; readonly en?: string };
  readonly reranker: RerankerConfig;
  readonly runWorker: boolean;
  readonly workerConcurrency: number;
  /** VECTOR_MAINTENANCE: where the worker runs vector-table upkeep (ADR 0560). */
  readonly vectorMaintenance: "process" | "inline";
  /** Delay between an erasure and the worker's purge of old vector-table versions (docs/erasure.md). */
  readonly vectorPurgeDelayMs: number;
  /** CORE_TIMEOUT_MS: a gateway's deadline for one core call (REST 504, MCP -32006 after it). */
  readonly coreTimeoutMs: number;
  /** RECALL_PRF: recall's pseudo-relevance feedback stage (ADR 0570). */
  readonly recallPrf: boolean;
  /** RECALL_TIME_ZONE: the IANA zone of the days and weeks in time expressions (ADR 0620). */
  readonly recallTimeZone: string;
  /**
   * Recall's BM25 (docs/recall.md "BM25", ADR 0230): "memory" serves it from per-tenant indexes held
   * in process under the workspace state budget; "sql" scores in PostgreSQL from the chunks' tsvectors (migration 0250).
   */
  readonly bm25Index: {
    readonly mode: "memory" | "sql";
    /** Each workspace's index on disk, loaded when it is cold (ADR 0370): `${dataDir}/bm25`. */
    readonly segmentDirectory: string;
  };
  /**
   * Per-workspace derived state of one process (ADR 0370, docs/scaling.md): `budgetBytes` for BM25
   * indexes and open vector tables together (WORKSPACE_STATE_BUDGET_MB), and the bound of LanceDB's
   * cache of ANN indexes (half the budget).
   */
  readonly workspaceState: { readonly budgetBytes: number; readonly vectorIndexCacheBytes: number };
  /** STARTUP_WARM_MS: the longest a restarted core waits for its hottest workspaces before listening. */
  readonly startupWarmMs: number;
  /** Payments through Stripe; unset: "payments not configured" (503 on the billing routes). */
  readonly stripe?: StripeConfig;
  /** Onboarding grants this plan without payment (self-hosting); unset: the spec's behaviour. */
  readonly selfHostedPlan?: PaidOrFreePlan;
  /** Outgoing webhooks (docs/webhooks.md). */
  readonly webhooks: WebhookConfig;
  readonly webFetch: WebFetchConfig;
  /** Who reads the Prometheus metrics (ADR 0150). */
  readonly metrics: MetricsConfig;
  /** OpenTelemetry tracing (docs/observability.md "Tracing"); no endpoint: off. */
  readonly tracing: { readonly otlpEndpoint?: string; readonly serviceName: string };
}

export interface MetricsConfig {
  /** METRICS_PORT: a listener serving only GET /metrics, without credentials; unset: none. */
  readonly port?: number;
  /** METRICS_HOST: where that listener binds (default loopback). */
  readonly host: string;
  /** METRICS_TOKEN: the edge serves GET /metrics to this bearer; unset: not on the edge. */
  readonly token?: string;
}

/** FetchWebPage (docs/ingest.md "Web pages"). */
export interface WebFetchConfig {
  /** Private, loopback and link-local addresses may be fetched too (tests, closed networks). */
  readonly allowPrivateUrls: boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

export interface WebhookConfig {
  /**
   * Accept and deliver to private, loopback and link-local addresses too (tests, closed networks);
   * reserved ones (multicast, 0.0.0.0, documentation ranges) stay refused (lib/net/outbound-guard.ts).
   */
  readonly allowPrivateTargets: boolean;
  /** PEM file of CA certificates trusted in addition to the public roots (tests, internal CAs). */
  readonly caFile?: string;
}

export type PaidOrFreePlan = "free" | "plus" | "pro" | "team" | "api";
export type PaidPlan = Exclude<PaidOrFreePlan, "free">;
export type BillingPeriodName = "monthly" | "yearly";

export interface StripeConfig {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** Price id per paid plan and billing period; a missing one makes that choice unavailable. */
  readonly prices: Readonly<Partial<Record<PaidPlan, Partial<Record<BillingPeriodName, string>>>>>;
  /** API address override for tests and mocks: protocol, host and port. */
  readonly apiBase?: { protocol: "http" | "https"; host: string; port: number };
}

function stripeConfig(env: Env): StripeConfig | undefined {
  if (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET) return undefined;
  const price = (monthly: string | undefined, yearly: string | undefined) => ({
    ...(monthly ? { monthly } : {}),
    ...(yearly ? { yearly } : {}),
  });
  const base = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : undefined;
  return {
    secretKey: env.STRIPE_SECRET_KEY,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET,
    prices: {
      plus: price(env.STRIPE_PRICE_PLUS_MONTHLY, env.STRIPE_PRICE_PLUS_YEARLY),
      pro: price(env.STRIPE_PRICE_PRO_MONTHLY, env.STRIPE_PRICE_PRO_YEARLY),
      team: price(env.STRIPE_PRICE_TEAM_MONTHLY, env.STRIPE_PRICE_TEAM_YEARLY),
      api: price(env.STRIPE_PRICE_API_MONTHLY, env.STRIPE_PRICE_API_YEARLY),
    },
    ...(base
      ? {
          apiBase: {
            protocol: base.protocol === "http:" ? "http" : "https",
            host: base.hostname,
            port: base.port ? Number(base.port) : base.protocol === "http:" ? 80 : 443,
          },
        }
      : {}),
  };
}

/** A configuration error, reported as one line naming the variable. */
/**
 * The default workspace state budget: 1/32 of the memory the process may use (the cgroup's limit
 * when there is one), between 128 MiB and 1 GiB — 768 MiB on a 24 GiB machine, which holds the
 * indexes of ≈ 2,000 workspaces of 500 chunks or a few of 100k (docs/scaling.md).
 */
export function defaultWorkspaceStateBudgetBytes(
  totalBytes = totalmem(),
  constrainedBytes = process.constrainedMemory?.() ?? 0,
): number {
  const available = constrainedBytes > 0 ? Math.min(totalBytes, constrainedBytes) : totalBytes;
  return Math.min(2 ** 30, Math.max(128 * 2 ** 20, Math.floor(available / 32)));
}

function workspaceStateConfig(budgetMB: number | undefined): Config["workspaceState"] {
  const budgetBytes = budgetMB === undefined ? defaultWorkspaceStateBudgetBytes() : budgetMB * 2 ** 20;
  return { budgetBytes, vectorIndexCacheBytes: Math.floor(budgetBytes / 2) };
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function fail(variable: string, message: string): never {
  throw new ConfigError(`${variable}: ${message}`);
}

function embeddingConfig(env: Env): EmbeddingConfig {
  const kind =
    env.EMBEDDING_PROVIDER ?? (env.EMBEDDING_MODEL_DIR ? "onnx" : env.EMBEDDING_URL ? "http" : "builtin");
  switch (kind) {
    case "onnx":
      return { kind, modelDir: env.EMBEDDING_MODEL_DIR ?? fail("EMBEDDING_MODEL_DIR", "required for onnx") };
    case "http":
      return {
        kind,
        url: env.EMBEDDING_URL ?? fail("EMBEDDING_URL", "required for the http embedding provider"),
        model: env.EMBEDDING_MODEL ?? fail("EMBEDDING_MODEL", "required for the http embedding provider"),
        ...(env.EMBEDDING_API_KEY ? { apiKey: env.EMBEDDING_API_KEY } : {}),
        ...(env.EMBEDDING_DIM ? { dim: env.EMBEDDING_DIM } : {}),
      };
    default:
      return { kind: "builtin", passageWorkers: env.BUILTIN_EMBEDDER_WORKERS };
  }
}

function rerankerConfig(env: Env): RerankerConfig {
  const kind = env.RERANKER ?? (env.RERANKER_MODEL_DIR ? "onnx" : env.RERANKER_URL ? "http" : "builtin");
  switch (kind) {
    case "onnx":
      return { kind, modelDir: env.RERANKER_MODEL_DIR ?? fail("RERANKER_MODEL_DIR", "required for onnx") };
    case "http":
      return {
        kind,
        url: env.RERANKER_URL ?? fail("RERANKER_URL", "required for the http reranker"),
        ...(env.RERANKER_MODEL ? { model: env.RERANKER_MODEL } : {}),
        ...(env.RERANKER_API_KEY ? { apiKey: env.RERANKER_API_KEY } : {}),
      };
    default:
      return { kind };
  }
}

/** Parses and checks the environment. Throws ConfigError with a one-line message on a bad value. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, so `FOO= npm start` behaves like not setting FOO.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    const value = cleaned[variable];
    const shown =
      value === undefined || /KEY|SECRET|URL|PASSWORD|TOKEN/.test(variable) ? "" : ` (got "${value}")`;
    fail(variable, `${issue?.message ?? "invalid"}${shown}`);
  }
  const env = parsed.data;
  if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET) {
    fail("STRIPE_WEBHOOK_SECRET", "required when STRIPE_SECRET_KEY is set");
  }
  if (env.STRIPE_WEBHOOK_SECRET && !env.STRIPE_SECRET_KEY) {
    fail("STRIPE_SECRET_KEY", "required when STRIPE_WEBHOOK_SECRET is set");
  }
  if (env.SELF_HOSTED_PLAN && env.STRIPE_SECRET_KEY) {
    fail("SELF_HOSTED_PLAN", "grants plans without payment; unset it, or unset the STRIPE_* keys");
  }
  const stripe = stripeConfig(env);
  const dataDir = isAbsolute(env.DATA_DIR) ? env.DATA_DIR : resolve(env.DATA_DIR);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  return {
    env,
    host: env.HOST,
    port: env.PORT,
    grpcPort: env.GRPC_PORT,
    publicUrl,
    dataDir,
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    databasePoolSize: env.DATABASE_POOL_SIZE,
    embeddedPgPort: env.EMBEDDED_PG_PORT,
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    rateLimitPrefix: env.RATE_LIMIT_PREFIX,
    lancedbUri: env.LANCEDB_URI ?? resolve(dataDir, "lancedb"),
    ...(env.CORE_URL ? { coreUrls: env.CORE_URL.split(",").map((u) => u.trim()) } : {}),
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    corsOrigins: (env.CORS_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    ...(env.SMTP_URL ? { smtpUrl: env.SMTP_URL } : {}),
    mailFrom: env.MAIL_FROM,
    ...(env.MASTER_KEY ? { masterKey: env.MASTER_KEY } : {}),
    providerAllowPrivateUrls: env.PROVIDER_ALLOW_PRIVATE_URLS,
    oauthClientMetadataAllowPrivateUrls: env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS,
    ...(env.NEW_MASTER_KEY ? { newMasterKey: env.NEW_MASTER_KEY } : {}),
    embedding: embeddingConfig(env),
    lexicon: {
      dictionaryDir: env.LEXICON_DIR,
      cacheDir: env.LEXICON_CACHE_DIR ?? resolve(dataDir, "cache"),
    },
    thesaurus: {
      ...(env.THESAURUS_DE !== undefined ? { de: env.THESAURUS_DE } : {}),
      ...(env.THESAURUS_EN !== undefined ? { en: env.THESAURUS_EN } : {}),
    },
    reranker: rerankerConfig(env),
    runWorker: env.WORKER,
    workerConcurrency: env.WORKER_CONCURRENCY,
    vectorMaintenance: env.VECTOR_MAINTENANCE,
    vectorPurgeDelayMs: env.VECTOR_PURGE_DELAY_MS,
    coreTimeoutMs: env.CORE_TIMEOUT_MS,
    recallPrf: env.RECALL_PRF,
    recallTimeZone: env.RECALL_TIME_ZONE,
    bm25Index: { mode: env.BM25_INDEX, segmentDirectory: resolve(dataDir, "bm25") },
    workspaceState: workspaceStateConfig(env.WORKSPACE_STATE_BUDGET_MB ?? env.BM25_INDEX_BUDGET_MB),
    startupWarmMs: env.STARTUP_WARM_MS,
    ...(stripe ? { stripe } : {}),
    ...(env.SELF_HOSTED_PLAN ? { selfHostedPlan: env.SELF_HOSTED_PLAN } : {}),
    webFetch: {
      allowPrivateUrls: env.WEB_FETCH_ALLOW_PRIVATE_URLS,
      timeoutMs: env.WEB_FETCH_TIMEOUT_MS,
      maxBytes: env.WEB_FETCH_MAX_BYTES,
    },
    webhooks: {
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      ...(env.WEBHOOK_CA_FILE ? { caFile: env.WEBHOOK_CA_FILE } : {}),
    },
    metrics: {
      ...(env.METRICS_PORT === undefined ? {} : { port: env.METRICS_PORT }),
      host: env.METRICS_HOST,
      ...(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN } : {}),
    },
    tracing: {
      ...(env.OTEL_EXPORTER_OTLP_ENDPOINT ? { otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
      serviceName: env.OTEL_SERVICE_NAME,
    },
  };
}
