import type { ServiceImpl } from "@connectrpc/connect";
import type { BillingService } from "../../gen/memory/v1/billing_service_pb.js";

// Subscriptions through the payment provider: a later issue. Until then every method answers
// UNIMPLEMENTED (HTTP 501 at the gateways).
export function createBillingService(): Partial<ServiceImpl<typeof BillingService>> {
  return {};
}
