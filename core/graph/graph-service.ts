import type { ServiceImpl } from "@connectrpc/connect";
import type { GraphService } from "../../gen/memory/v1/graph_service_pb.js";

// Knowledge graph and bi-temporal facts. Methods not provided answer UNIMPLEMENTED.
export function createGraphService(): Partial<ServiceImpl<typeof GraphService>> {
  return {};
}
