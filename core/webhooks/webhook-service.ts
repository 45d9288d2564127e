import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "../../gen/memory/v1/webhook_service_pb.js";

// Outgoing webhook subscriptions: a later issue. Until then every method answers UNIMPLEMENTED.
export function createWebhookService(): Partial<ServiceImpl<typeof WebhookService>> {
  return {};
}
