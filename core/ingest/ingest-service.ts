import type { ServiceImpl } from "@connectrpc/connect";
import type { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { ingestDocument } from "./ingest-document.js";
import { storeMemory } from "./store-memory.js";
import { uploadDocument } from "./upload-document.js";
import type { WriteNewMemoryDeps } from "./write-new-memory.js";

export type IngestServiceDeps = WriteNewMemoryDeps;

/** IngestService (docs/ingest.md): the tenant always comes from the credentials, never the request. */
export function createIngestService(deps: IngestServiceDeps): ServiceImpl<typeof IngestService> {
  return {
    storeMemory: (request, ctx) => storeMemory(deps, tenantCaller(ctx), request),
    uploadDocument: (request, ctx) => uploadDocument(deps, tenantCaller(ctx), request),
    ingestDocument: (request, ctx) => ingestDocument(deps, tenantCaller(ctx), request),
  };
}
