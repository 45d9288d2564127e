import type { ServiceImpl } from "@connectrpc/connect";
import type { RecallService } from "../../gen/memory/v1/recall_service_pb.js";

// Hybrid recall (issue: BM25 + vectors + graph + rerank). Methods not provided answer UNIMPLEMENTED.
export function createRecallService(): Partial<ServiceImpl<typeof RecallService>> {
  return {};
}
