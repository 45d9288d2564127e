import { type Client, createClient, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BillingService } from "../gen/memory/v1/billing_service_pb.js";
import { GraphService } from "../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../gen/memory/v1/ingest_service_pb.js";
import { LifecycleService } from "../gen/memory/v1/lifecycle_service_pb.js";
import { RecallService } from "../gen/memory/v1/recall_service_pb.js";
import { StatusService } from "../gen/memory/v1/status_service_pb.js";
import { TenancyService } from "../gen/memory/v1/tenancy_service_pb.js";
import { WebhookService } from "../gen/memory/v1/webhook_service_pb.js";
import { createRoutingTransport, type RoutingTransportOptions } from "./routing-transport.js";

/** Typed clients of every core service, over one transport (in-process or gRPC). */
export interface CoreClients {
  readonly recall: Client<typeof RecallService>;
  readonly ingest: Client<typeof IngestService>;
  readonly graph: Client<typeof GraphService>;
  readonly tenancy: Client<typeof TenancyService>;
  readonly billing: Client<typeof BillingService>;
  readonly webhooks: Client<typeof WebhookService>;
  readonly lifecycle: Client<typeof LifecycleService>;
  readonly status: Client<typeof StatusService>;
}

export function createCoreClients(transport: Transport): CoreClients {
  return {
    recall: createClient(RecallService, transport),
    ingest: createClient(IngestService, transport),
    graph: createClient(GraphService, transport),
    tenancy: createClient(TenancyService, transport),
    billing: createClient(BillingService, transport),
    webhooks: createClient(WebhookService, transport),
    lifecycle: createClient(LifecycleService, transport),
    status: createClient(StatusService, transport),
  };
}

/** Reaches a separately running core (CORE_URL) with gRPC over HTTP/2. */
export function createRemoteCoreTransport(coreUrl: string): Transport {
  return createGrpcTransport({ baseUrl: coreUrl });
}

/**
 * The transport to the cores CORE_URL lists: one URL is one gRPC transport, exactly as before (a
 * balancer or a single core); several are routed by workspace, each workspace's calls to one core
 * and to the next in its rendezvous order while that one is down (ADR 0380).
 */
export function createCoreFleetTransport(
  coreUrls: readonly string[],
  options: Omit<RoutingTransportOptions, "endpoints"> = {},
): Transport {
  const [only, ...more] = coreUrls;
  if (only === undefined) throw new Error("no core URL");
  if (more.length === 0) return createRemoteCoreTransport(only);
  return createRoutingTransport({
    ...options,
    endpoints: coreUrls.map((url) => ({ url, transport: createRemoteCoreTransport(url) })),
  });
}
