import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import type { StripeConfig } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { file_grpc_health_v1_health, Health } from "../gen/grpc/health/v1/health_pb.js";
import { ServerReflection as ReflectionV1 } from "../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ReflectionV1alpha } from "../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { BillingService, file_memory_v1_billing_service } from "../gen/memory/v1/billing_service_pb.js";
import { file_memory_v1_errors } from "../gen/memory/v1/errors_pb.js";
import { file_memory_v1_graph_service, GraphService } from "../gen/memory/v1/graph_service_pb.js";
import { file_memory_v1_ingest_service, IngestService } from "../gen/memory/v1/ingest_service_pb.js";
import { file_memory_v1_lifecycle_service, LifecycleService } from "../gen/memory/v1/lifecycle_service_pb.js";
import { file_memory_v1_recall_service, RecallService } from "../gen/memory/v1/recall_service_pb.js";
import { file_memory_v1_status_service, StatusService } from "../gen/memory/v1/status_service_pb.js";
import { file_memory_v1_tenancy_service, TenancyService } from "../gen/memory/v1/tenancy_service_pb.js";
import { file_memory_v1_webhook_service, WebhookService } from "../gen/memory/v1/webhook_service_pb.js";
import { MCP_GATEWAY, MCP_RESOURCE_PATH } from "../lib/gateway-metadata.js";
import type { MemoryBudget } from "../lib/memory-budget/memory-budget.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { sharedOutboundGuard } from "../lib/net/outbound-guard.js";
import { createRateLimiters, type RateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { createAuthInterceptor } from "./auth/auth-interceptor.js";
import { type Authenticator, createAuthenticator } from "./auth/authenticate.js";
import type { PlanName } from "./auth/principal.js";
import { createRateLimitInterceptor } from "./auth/rate-limit-interceptor.js";
import { createRouteHeaderInterceptor } from "./auth/route-header-interceptor.js";
import { createBillingService, onboardingCheckout } from "./billing/billing-service.js";
import { cancelSubscriptionNow } from "./billing/cancel-subscription-now.js";
import { createPayments } from "./billing/payments.js";
import { createErrorInterceptor } from "./error-interceptor.js";
import { createFailFastInterceptor } from "./fail-fast-interceptor.js";
import { createGraphService } from "./graph/graph-service.js";
import { createHealthService } from "./health/health-service.js";
import { withIdempotentWrites } from "./idempotency/idempotent-writes.js";
import { startInstanceHeartbeat } from "./idempotency/instance-heartbeat.js";
import { createIngestService } from "./ingest/ingest-service.js";
import { parseMasterKey } from "./keys/key-cipher.js";
import { createTenantModels, type TenantModelsOptions } from "./keys/tenant-models.js";
import { createLifecycleService } from "./lifecycle/lifecycle-service.js";
import { createMetricsInterceptor } from "./metrics-interceptor.js";
import type { EmbeddingProvider } from "./models/embedding-provider.js";
import type { Lexicon } from "./models/lexicon/lexicon.js";
import type { Reranker } from "./models/reranker.js";
import type { Thesaurus } from "./models/thesaurus/thesaurus.js";
import { type Bm25IndexCache, createBm25IndexCache } from "./recall/bm25/bm25-index-cache.js";
import { createRecallLogWriter } from "./recall/recall-log-writer.js";
import { createRecallService } from "./recall/recall-service.js";
import { rehearseRecall } from "./recall/rehearse-recall.js";
import { type WarmUp, warmWorkspaces } from "./recall/warm-workspaces.js";
import { fileRegistryOf } from "./reflection/file-registry.js";
import { createReflectionServices } from "./reflection/reflection-service.js";
import { embeddingSpaceCheck } from "./status/embedding-space-check.js";
import { type ComponentCheck, createStatusService } from "./status/status-service.js";
import type { Database } from "./store/database.js";
import { createMagicLinkMailer } from "./tenancy/magic-link-mailer.js";
import { createClientMetadataDocuments } from "./tenancy/oauth/client-metadata-documents.js";
import { createTenancyService } from "./tenancy/tenancy-service.js";
import { createValidateInterceptor } from "./validate-interceptor.js";
import type { VectorStore } from "./vectors/vector-store.js";
import { createSecretBox } from "./webhooks/secret-box.js";
import { createWebhookService } from "./webhooks/webhook-service.js";

export const SERVICE_NAME = "memory-service";

export interface CoreOptions {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly reranker: Reranker | undefined;
  /** FreeDict lexicon for recall's cross-lingual query expansion (docs/recall.md); unset: none. */
  readonly lexicon?: Lexicon | undefined;
  /** Thesauri for recall's synonym expansion (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly logger: Logger;
  readonly version: string;
  readonly publicUrl: string;
  /**
   * Whether the network gRPC server believes a caller's x-client-ip (TRUST_PROXY: gateways on a
   * private network). The in-process gateways are always believed.
   */
  readonly trustClientIp: boolean;
  /** Whether a worker is running (in process, or alive per heartbeat). */
  readonly workerCheck: ComponentCheck;
  /**
   * Store of the per-token and MCP per-IP limits (Redis or memory), shared with the edge's per-IP
   * limits; default: in-memory limiters of this core alone.
   */
  readonly rateLimiters?: RateLimiters;
  /** Magic-link mail (SMTP_URL, MAIL_FROM); without smtpUrl links are written to the log. */
  readonly mail?: { readonly smtpUrl?: string | undefined; readonly from: string };
  /** Stripe (STRIPE_* variables); unset: payments not configured (503, onboarding of paid plans 402). */
  readonly stripe?: StripeConfig | undefined;
  /** SELF_HOSTED_PLAN: onboarding grants this plan without payment. */
  readonly selfHostedPlan?: PlanName | undefined;
  /**
   * MASTER_KEY (base64, 32 bytes): seals webhook signing secrets and provider keys (BYOK); unset:
   * webhook subscriptions and provider keys are refused (503).
   */
  readonly masterKey?: string | undefined;
  /** PROVIDER_ALLOW_PRIVATE_URLS: provider base URLs may reach private addresses (and use http). */
  readonly providerAllowPrivateUrls?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: webhook targets may be private addresses (checked when stored). */
  readonly webhookAllowPrivateTargets?: boolean;
  /**
   * OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: client ID metadata documents may be fetched from
   * private addresses and over http (development and tests only; ADR 0400).
   */
  readonly oauthClientMetadataAllowPrivateUrls?: boolean;
  /** Timeouts/retries of BYOK provider clients (tests shorten them). */
  readonly providerClientOptions?: TenantModelsOptions["clientOptions"];
  /** Delay between an erasure and the worker's purge of old vector versions (docs/erasure.md). */
  readonly vectorPurgeDelayMs?: number;
  /** Recall's BM25 source (BM25_INDEX, BM25_INDEX_BUDGET_MB); default: in-process indexes, 256 MB. */
  readonly bm25Index?: { readonly mode: "memory" | "sql"; readonly segmentDirectory?: string };
  /** The process's one budget for per-workspace state, shared with the vector store (Storage). */
  readonly workspaceState?: MemoryBudget;
  /** The process's Prometheus metrics (core calls, recall stages); unset: none recorded. */
  readonly metrics?: ServiceMetrics | undefined;
}

/** Core's gRPC surface: routes for every service plus the interceptor chain, for any transport. */
export interface Core {
  readonly routes: (router: ConnectRouter) => void;
  /** For the network gRPC server. */
  readonly interceptors: Interceptor[];
  /** For the in-process transport of gateways in the same process (client IPs are theirs to tell). */
  readonly inProcessInterceptors: Interceptor[];
  readonly authenticator: Authenticator;
  /** The process's derived BM25 indexes (undefined with BM25_INDEX=sql); closed by `close`. */
  readonly bm25Index: Bm25IndexCache | undefined;
  /** The warm-up of the last run's hot list (undefined with BM25_INDEX=sql). */
  readonly warmUp: WarmUp | undefined;
  /**
   * On shutdown, after the servers stopped taking calls and before the database closes: writes the
   * recall latencies still pending and drops the BM25 indexes.
   */
  close(): Promise<void>;
}

const MEMORY_SERVICES = [
  RecallService,
  IngestService,
  GraphService,
  TenancyService,
  BillingService,
  WebhookService,
  LifecycleService,
  StatusService,
].map((s) => s.typeName);

export function createCore(options: CoreOptions): Core {
  const { db, vectors } = options;
  const authenticator = createAuthenticator({ db });
  const rateLimiters =
    options.rateLimiters ?? createRateLimiters({ keyPrefix: "memory-service", logger: options.logger });
  const mailer = createMagicLinkMailer({
    smtpUrl: options.mail?.smtpUrl,
    from: options.mail?.from ?? "Memory Service <no-reply@localhost>",
    logger: options.logger,
  });
  const billingDeps = {
    db,
    logger: options.logger,
    publicUrl: options.publicUrl,
    payments: options.stripe ? createPayments(options.stripe) : undefined,
    sendMail: (message: { to: string; subject: string; text: string }) => mailer.sendMessage(message),
    forgetTenant: (tenantId: string) => authenticator.forgetTenant(tenantId),
  };
  // One guard for every user-given URL (lib/net/outbound-guard.ts, ADR 0360), set per kind of URL.
  const providerGuard = sharedOutboundGuard(options.providerAllowPrivateUrls ?? false);
  const models = createTenantModels({
    db,
    masterKey: options.masterKey === undefined ? undefined : parseMasterKey(options.masterKey),
    defaultEmbedder: options.embedder,
    defaultReranker: options.reranker,
    logger: options.logger,
    guard: providerGuard,
    ...(options.providerClientOptions ? { clientOptions: options.providerClientOptions } : {}),
  });
  const tenancy = createTenancyService({
    db,
    authenticator,
    mailer,
    publicUrl: options.publicUrl,
    logger: options.logger,
    startCheckout: billingDeps.payments ? onboardingCheckout(billingDeps) : undefined,
    selfHostedPlan: options.selfHostedPlan,
    keys: {
      masterKey: options.masterKey === undefined ? undefined : parseMasterKey(options.masterKey),
      guard: providerGuard,
      models,
    },
    clientMetadataDocuments: createClientMetadataDocuments({
      db,
      guard: sharedOutboundGuard(options.oauthClientMetadataAllowPrivateUrls ?? false),
    }),
  });
  const registry = fileRegistryOf([
    file_memory_v1_recall_service,
    file_memory_v1_ingest_service,
    file_memory_v1_graph_service,
    file_memory_v1_tenancy_service,
    file_memory_v1_billing_service,
    file_memory_v1_webhook_service,
    file_memory_v1_lifecycle_service,
    file_memory_v1_status_service,
    file_memory_v1_errors,
    file_grpc_health_v1_health,
  ]);
  const reflectedServices = [
    ...MEMORY_SERVICES,
    Health.typeName,
    ReflectionV1.typeName,
    ReflectionV1alpha.typeName,
  ];
  const reflection = createReflectionServices(registry, reflectedServices);
  const status = createStatusService({
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

  // The same chain for every transport; only whether the caller's x-client-ip is believed differs.
  const rateLimit = createRateLimitInterceptor(rateLimiters);
  const interceptorChain = (trustClientIp: boolean, transport: "grpc" | "in_process"): Interceptor[] => [
    createMetricsInterceptor(options.metrics, transport),
    // Outside the error interceptor: names the caller's workspace route on answers and errors alike.
    createRouteHeaderInterceptor(),
    createErrorInterceptor(options.logger),
    // Before auth: a token lookup on a frozen database would wait like any other query.
    createFailFastInterceptor(db.watchdog),
    createAuthInterceptor(authenticator, {
      trustClientIp,
      resources: { [MCP_GATEWAY]: `${options.publicUrl}${MCP_RESOURCE_PATH}` },
    }),
    // After auth (limits are per credential and plan), before validation (invalid calls count).
    rateLimit,
    createValidateInterceptor(),
  ];

  // Every service is built here, once per process: the gRPC server and the in-process transport
  // both route to these same instances (one BM25 index cache per process).
  const bm25Index =
    options.bm25Index?.mode === "sql"
      ? undefined
      : createBm25IndexCache({
          db,
          logger: options.logger,
          budget: options.workspaceState,
          segmentDirectory: options.bm25Index?.segmentDirectory,
        });
  const recallLog = createRecallLogWriter({ db, logger: options.logger });
  const recall = createRecallService({
    recallLog,
    bm25Index,
    db,
    vectors,
    embedder: options.embedder,
    reranker: options.reranker,
    lexicon: options.lexicon,
    thesaurus: options.thesaurus,
    logger: options.logger,
    models,
  });
  const warmUp = bm25Index
    ? warmWorkspaces({
        bm25Index,
        vectors,
        budget: options.workspaceState,
        logger: options.logger,
        rehearse: (tenantId) =>
          rehearseRecall(
            {
              db,
              vectors,
              embedder: options.embedder,
              reranker: options.reranker,
              lexicon: options.lexicon,
              thesaurus: options.thesaurus,
              logger: options.logger,
              bm25Index,
              models,
            },
            tenantId,
          ),
      })
    : undefined;
  const ingest = createIngestService({
    db,
    vectors,
    embedder: options.embedder,
    logger: options.logger,
    upgradeUrl: `${options.publicUrl}/dashboard/billing`,
    models,
  });
  const graph = createGraphService({
    db,
    vectors,
    embedder: options.embedder,
    logger: options.logger,
    models,
  });
  const billing = createBillingService(billingDeps);
  const webhooks = createWebhookService({
    db,
    secretBox: options.masterKey ? createSecretBox(options.masterKey) : undefined,
    publicUrl: options.publicUrl,
    logger: options.logger,
    guard: sharedOutboundGuard(options.webhookAllowPrivateTargets ?? false),
  });
  const lifecycle = createLifecycleService({
    db,
    vectors,
    embedder: options.embedder,
    logger: options.logger,
    purgeDelayMs: options.vectorPurgeDelayMs ?? 120_000,
    upgradeUrl: `${options.publicUrl}/dashboard/billing`,
    forgetTenant: (tenantId) => {
      authenticator.forgetTenant(tenantId);
      bm25Index?.forget(tenantId);
    },
    // Erased chunks leave this process's BM25 index at once (other processes: next recall or sweep).
    onChunksErased: (tenantId) =>
      bm25Index
        ?.refresh(tenantId)
        .catch((error: unknown) =>
          options.logger.warn({ err: error, tenantId }, "BM25 index not caught up after an erasure"),
        ),
    cancelSubscription: (tenantId) => cancelSubscriptionNow(billingDeps, tenantId),
  });
  const health = createHealthService({ services: MEMORY_SERVICES, isDatabaseUp: () => db.ping(1000) });
  // This process as the owner of idempotency claims: a claim of a dead process is taken over.
  const heartbeat = startInstanceHeartbeat(db, options.logger);

  return {
    authenticator,
    bm25Index,
    warmUp,
    async close() {
      warmUp?.stop();
      await recallLog.flush();
      bm25Index?.close();
      await heartbeat.stop();
    },
    interceptors: interceptorChain(options.trustClientIp, "grpc"),
    inProcessInterceptors: interceptorChain(true, "in_process"),
    routes(router) {
      router.service(RecallService, recall);
      // Writes repeated with an idempotency key replay their first answer (issue 15).
      router.service(IngestService, withIdempotentWrites(db, heartbeat.id, IngestService, ingest));
      router.service(GraphService, withIdempotentWrites(db, heartbeat.id, GraphService, graph));
      router.service(TenancyService, tenancy);
      router.service(BillingService, billing);
      router.service(WebhookService, webhooks);
      router.service(LifecycleService, lifecycle);
      router.service(StatusService, status);
      router.service(Health, health);
      router.service(ReflectionV1, reflection.v1);
      router.service(ReflectionV1alpha, reflection.v1alpha);
    },
  };
}
