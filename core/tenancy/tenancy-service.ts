import type { ServiceImpl } from "@connectrpc/connect";
import type { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";

// Tenancy and auth. Methods not provided answer UNIMPLEMENTED.
export function createTenancyService(): Partial<ServiceImpl<typeof TenancyService>> {
  return {};
}
