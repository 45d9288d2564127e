import { isAbsolute, resolve } from "node:path";
import { z } from "zod";

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
const flag = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off"])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

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
  CORE_URL: optionalUrl(["http:", "https:"]),
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
  EMBEDDING_PROVIDER: z.enum(["builtin", "onnx", "http"]).optional(),
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
  WORKER: flag.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  // docs/erasure.md "Vacuum": how long after an erasure the worker removes old LanceDB versions.
  VECTOR_PURGE_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
  STRIPE_SECRET_KEY: z.string().trim().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().trim().min(1).optional(),
});

export type Env = z.infer<typeof envSchema>;

export type EmbeddingConfig =
  | { kind: "builtin" }
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
  /** Set: gateways and worker reach a separate core over gRPC instead of in-process. */
  readonly coreUrl?: string;
  readonly logLevel: Env["LOG_LEVEL"];
  readonly trustProxy: boolean;
  readonly corsOrigins: readonly string[];
  readonly smtpUrl?: string;
  readonly mailFrom: string;
  readonly masterKey?: string;
  readonly embedding: EmbeddingConfig;
  /** FreeDict dictionaries (read at run time, never copied) and where their parsed tables are cached. */
  readonly lexicon: { dictionaryDir: string; cacheDir: string };
  readonly reranker: RerankerConfig;
  readonly runWorker: boolean;
  readonly workerConcurrency: number;
  /** Delay between an erasure and the worker's purge of old vector-table versions (docs/erasure.md). */
  readonly vectorPurgeDelayMs: number;
  readonly stripe?: { secretKey: string; webhookSecret: string };
}

/** A configuration error, reported as one line naming the variable. */
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
      return { kind: "builtin" };
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
    const shown = value === undefined || /KEY|SECRET|URL|PASSWORD/.test(variable) ? "" : ` (got "${value}")`;
    fail(variable, `${issue?.message ?? "invalid"}${shown}`);
  }
  const env = parsed.data;
  if (env.STRIPE_SECRET_KEY && !env.STRIPE_WEBHOOK_SECRET) {
    fail("STRIPE_WEBHOOK_SECRET", "required when STRIPE_SECRET_KEY is set");
  }
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
    ...(env.CORE_URL ? { coreUrl: env.CORE_URL } : {}),
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    corsOrigins: (env.CORS_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    ...(env.SMTP_URL ? { smtpUrl: env.SMTP_URL } : {}),
    mailFrom: env.MAIL_FROM,
    ...(env.MASTER_KEY ? { masterKey: env.MASTER_KEY } : {}),
    embedding: embeddingConfig(env),
    lexicon: {
      dictionaryDir: env.LEXICON_DIR,
      cacheDir: env.LEXICON_CACHE_DIR ?? resolve(dataDir, "cache"),
    },
    reranker: rerankerConfig(env),
    runWorker: env.WORKER,
    workerConcurrency: env.WORKER_CONCURRENCY,
    vectorPurgeDelayMs: env.VECTOR_PURGE_DELAY_MS,
    ...(env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
      ? { stripe: { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET } }
      : {}),
  };
}
