import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { ServerReflection as ReflectionV1 } from "../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ReflectionV1alpha } from "../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { BillingService } from "../gen/memory/v1/billing_service_pb.js";
import { GraphService } from "../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../gen/memory/v1/ingest_service_pb.js";
import { LifecycleService } from "../gen/memory/v1/lifecycle_service_pb.js";
import { RecallService } from "../gen/memory/v1/recall_service_pb.js";
import { StatusService } from "../gen/memory/v1/status_service_pb.js";
import { TenancyService } from "../gen/memory/v1/tenancy_service_pb.js";
import { WebhookService } from "../gen/memory/v1/webhook_service_pb.js";
import { sharedOutboundGuard } from "../lib/net/outbound-guard.js";
import { createRateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { createAccountServices } from "./assembly/account-services.js";
import type { CoreOptions } from "./assembly/core-options.js";
import { createCoreStatus } from "./assembly/core-status.js";
import { createInterceptorChain } from "./assembly/interceptor-chain.js";
import { createLifecycleParts } from "./assembly/lifecycle-parts.js";
import { createCoreReflection, MEMORY_SERVICES } from "./assembly/memory-services.js";
import { createRecallParts } from "./assembly/recall-parts.js";
import { type Authenticator, createAuthenticator } from "./auth/authenticate.js";
import { createBillingService } from "./billing/billing-service.js";
import { createGraphService } from "./graph/graph-service.js";
import { createHealthService } from "./health/health-service.js";
import { withIdempotentWrites } from "./idempotency/idempotent-writes.js";
import { startInstanceHeartbeat } from "./idempotency/instance-heartbeat.js";
import { createIngestService } from "./ingest/ingest-service.js";
import { DEFAULT_WEB_FETCH_LIMITS } from "./ingest/web/fetch-web-page.js";
import type { Bm25IndexCache } from "./recall/bm25/bm25-index-cache.js";
import type { WarmUp } from "./recall/warm-workspaces.js";
import { createSecretBox } from "./webhooks/secret-box.js";
import { createWebhookService } from "./webhooks/webhook-service.js";

export type { CoreOptions } from "./assembly/core-options.js";
export { SERVICE_NAME } from "./assembly/core-status.js";

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

export function createCore(options: CoreOptions): Core {
  const { db, vectors } = options;
  const authenticator = createAuthenticator({ db });
  const rateLimiters =
    options.rateLimiters ?? createRateLimiters({ keyPrefix: "memory-service", logger: options.logger });
  const { models, tenancy, billingDeps } = createAccountServices(options, authenticator);
  const reflection = createCoreReflection();
  const status = createCoreStatus(options);
  const interceptorChain = createInterceptorChain(options, authenticator, rateLimiters);

  // Every service is built here, once per process: the gRPC server and the in-process transport
  // both route to these same instances (one BM25 index cache per process).
  const { bm25Index, recallLog, recall, warmUp } = createRecallParts(options, models);
  const ingest = createIngestService({
    db,
    vectors,
    embedder: options.embedder,
    logger: options.logger,
    upgradeUrl: `${options.publicUrl}/dashboard/billing`,
    models,
    webFetch: {
      guard: sharedOutboundGuard(options.webFetchAllowPrivateUrls ?? false),
      limits: options.webFetchLimits ?? DEFAULT_WEB_FETCH_LIMITS,
    },
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
  const lifecycle = createLifecycleParts(options, authenticator, bm25Index, billingDeps);
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
