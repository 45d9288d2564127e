import type { ServiceImpl } from "@connectrpc/connect";
import type { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { type TenantModels, withTenantEmbedder } from "../keys/tenant-models.js";
import type { WriteNewMemoryDeps } from "../memories/index.js";
import { storeConversation } from "./conversations/store-conversation.js";
import { ingestDocument } from "./ingest-document.js";
import { storeMemories } from "./store-memories.js";
import { storeMemory } from "./store-memory.js";
import { uploadDocument } from "./upload-document.js";
import { uploadFile } from "./upload-file.js";
import { storeWebPage, type WebFetchDeps } from "./web/store-web-page.js";

export type IngestServiceDeps = WriteNewMemoryDeps & {
  /** The workspace's own embedder (BYOK); unset: the service's for everyone. */
  readonly models?: TenantModels | undefined;
  /** FetchWebPage's outbound guard and limits. */
  readonly webFetch: WebFetchDeps;
};

/** IngestService (docs/ingest.md): the tenant always comes from the credentials, never the request. */
export function createIngestService(deps: IngestServiceDeps): ServiceImpl<typeof IngestService> {
  return {
    async storeMemory(request, ctx) {
      const caller = tenantCaller(ctx);
      return storeMemory(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async storeMemories(request, ctx) {
      const caller = tenantCaller(ctx);
      return storeMemories(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async uploadDocument(request, ctx) {
      const caller = tenantCaller(ctx);
      return uploadDocument(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async ingestDocument(request, ctx) {
      const caller = tenantCaller(ctx);
      return ingestDocument(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async storeConversation(request, ctx) {
      const caller = tenantCaller(ctx);
      return storeConversation(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async uploadFile(request, ctx) {
      const caller = tenantCaller(ctx);
      return uploadFile(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
    async fetchWebPage(request, ctx) {
      const caller = tenantCaller(ctx);
      return storeWebPage(await withTenantEmbedder(deps, caller.tenantId), caller, request);
    },
  };
}
