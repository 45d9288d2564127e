// @memory-service/client: the buf-generated Connect clients of proto/memory/v1 plus a thin layer
// (bearer token, retries honouring Retry-After). `@memory-service/client/node` builds a transport.
export { bearerTokenInterceptor, type TokenSource } from "./auth.js";
export { createMemoryClient, type MemoryClient, memoryInterceptors } from "./client.js";
export * from "./gen/memory/v1/billing_service_pb.js";
export * from "./gen/memory/v1/errors_pb.js";
export * from "./gen/memory/v1/graph_service_pb.js";
export * from "./gen/memory/v1/ingest_service_pb.js";
export * from "./gen/memory/v1/lifecycle_service_pb.js";
export * from "./gen/memory/v1/memory_pb.js";
export * from "./gen/memory/v1/recall_service_pb.js";
export * from "./gen/memory/v1/status_service_pb.js";
export * from "./gen/memory/v1/tenancy_service_pb.js";
export * from "./gen/memory/v1/webhook_service_pb.js";
export {
  DEFAULT_MAX_RETRIES,
  isRetryable,
  type RetryOptions,
  retryAfterSeconds,
  retryDelayMs,
  retryInterceptor,
} from "./retry.js";
