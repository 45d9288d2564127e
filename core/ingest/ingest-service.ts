import type { ServiceImpl } from "@connectrpc/connect";
import type { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";

// Ingest (issue: chunking, embeddings, vectors, worker). Methods not provided answer UNIMPLEMENTED.
export function createIngestService(): Partial<ServiceImpl<typeof IngestService>> {
  return {};
}
