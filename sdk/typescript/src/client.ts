import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { bearerTokenInterceptor, type TokenSource } from "./auth.js";
import { BillingService } from "./gen/memory/v1/billing_service_pb.js";
import { GraphService } from "./gen/memory/v1/graph_service_pb.js";
import { IngestService } from "./gen/memory/v1/ingest_service_pb.js";
import { LifecycleService } from "./gen/memory/v1/lifecycle_service_pb.js";
import { RecallService } from "./gen/memory/v1/recall_service_pb.js";
import { StatusService } from "./gen/memory/v1/status_service_pb.js";
import { TenancyService } from "./gen/memory/v1/tenancy_service_pb.js";
import { WebhookService } from "./gen/memory/v1/webhook_service_pb.js";
import { type RetryOptions, retryInterceptor } from "./retry.js";

/** Typed clients of every service in proto/memory/v1, sharing one transport. */
export interface MemoryClient {
  readonly ingest: Client<typeof IngestService>;
  readonly recall: Client<typeof RecallService>;
  readonly graph: Client<typeof GraphService>;
  readonly status: Client<typeof StatusService>;
  readonly tenancy: Client<typeof TenancyService>;
  readonly webhooks: Client<typeof WebhookService>;
  /** Erasure (an admin-scope token) and, for a signed-in owner, workspace erasure and import. */
  readonly lifecycle: Client<typeof LifecycleService>;
  /** Plans and subscriptions; most calls need a signed-in session, the cancellation steps none. */
  readonly billing: Client<typeof BillingService>;
}

/** Interceptors for a transport you build yourself: bearer token first, then retries. */
export function memoryInterceptors(options: {
  token?: TokenSource;
  retry?: RetryOptions | false;
}): Interceptor[] {
  return [
    ...(options.retry === false ? [] : [retryInterceptor(options.retry)]),
    ...(options.token === undefined ? [] : [bearerTokenInterceptor(options.token)]),
  ];
}

/**
 * Clients over a transport that already carries `memoryInterceptors(...)` (see ./node for the
 * one-call Node version, or pass the interceptors to createConnectTransport from
 * @connectrpc/connect-web in a browser).
 */
export function createMemoryClient(transport: Transport): MemoryClient {
  return {
    ingest: createClient(IngestService, transport),
    recall: createClient(RecallService, transport),
    graph: createClient(GraphService, transport),
    status: createClient(StatusService, transport),
    tenancy: createClient(TenancyService, transport),
    webhooks: createClient(WebhookService, transport),
    lifecycle: createClient(LifecycleService, transport),
    billing: createClient(BillingService, transport),
  };
}
