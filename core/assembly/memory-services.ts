import { file_grpc_health_v1_health, Health } from "../../gen/grpc/health/v1/health_pb.js";
import { ServerReflection as ReflectionV1 } from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ReflectionV1alpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { BillingService, file_memory_v1_billing_service } from "../../gen/memory/v1/billing_service_pb.js";
import { file_memory_v1_errors } from "../../gen/memory/v1/errors_pb.js";
import { file_memory_v1_graph_service, GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { file_memory_v1_ingest_service, IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import {
  file_memory_v1_lifecycle_service,
  LifecycleService,
} from "../../gen/memory/v1/lifecycle_service_pb.js";
import { file_memory_v1_recall_service, RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import { file_memory_v1_status_service, StatusService } from "../../gen/memory/v1/status_service_pb.js";
import { file_memory_v1_tenancy_service, TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { file_memory_v1_webhook_service, WebhookService } from "../../gen/memory/v1/webhook_service_pb.js";
import { fileRegistryOf } from "../reflection/file-registry.js";
import { createReflectionServices } from "../reflection/reflection-service.js";

/** The memory service's own gRPC services, by full name (health reports them, reflection lists them). */
export const MEMORY_SERVICES = [
  RecallService,
  IngestService,
  GraphService,
  TenancyService,
  BillingService,
  WebhookService,
  LifecycleService,
  StatusService,
].map((s) => s.typeName);

/** Server reflection (v1 and v1alpha) over every service core serves, health and reflection included. */
export function createCoreReflection(): ReturnType<typeof createReflectionServices> {
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
  return createReflectionServices(registry, reflectedServices);
}
