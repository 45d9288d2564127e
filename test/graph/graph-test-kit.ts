import { createHash } from "node:crypto";
import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { ExecutionContext } from "ava";
import type { MemoryKindName, MemoryTypeName } from "../../core/memories/relation-types.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Models } from "../../core/models/load-models.js";
import { ErrorInfoSchema } from "../../gen/memory/v1/errors_pb.js";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { MemoryType } from "../../gen/memory/v1/memory_pb.js";
import { RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import type { TestService } from "../helpers/test-service.js";

/**
 * A small deterministic embedder: signed hashing of lower-cased words into 64 dimensions, L2
 * normalised. Enough for recall to match a memory by its words; keeps the graph tests independent
 * of which embedding models are installed.
 */
export function wordHashEmbedder(): EmbeddingProvider {
  const dim = 64;
  return {
    id: "test-wordhash-64",
    dim,
    tokenizer: { countTokens: (text) => text.split(/\s+/).filter(Boolean).length },
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dim);
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
          const h = createHash("sha256").update(word).digest();
          v[h[0]! % dim]! += h[1]! & 1 ? 1 : -1;
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };
}

export function testModels(): Models {
  return { embedder: wordHashEmbedder(), reranker: undefined, close: async () => undefined };
}

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };

/** A GraphService client over real gRPC (HTTP/2) to the test service, as the given token. */
export function graphClient(service: TestService, token: string): Client<typeof GraphService> {
  return createClient(
    GraphService,
    createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(token)] }),
  );
}

const MEMORY_TYPES: Readonly<Record<MemoryTypeName, MemoryType>> = {
  semantic: MemoryType.SEMANTIC,
  episodic: MemoryType.EPISODIC,
  procedural: MemoryType.PROCEDURAL,
  reference: MemoryType.REFERENCE,
  working: MemoryType.WORKING,
  entity: MemoryType.ENTITY,
};

/** A RecallService client over real gRPC, as the given token. */
export function recallClient(service: TestService, token: string): Client<typeof RecallService> {
  return createClient(
    RecallService,
    createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(token)] }),
  );
}

/**
 * Stores a memory through the real ingest path over gRPC as the tenant: StoreMemory for entries,
 * UploadDocument for documents (always memory_type semantic there). Returns its id.
 */
export async function storeMemory(
  service: TestService,
  tenant: { readonly token: string },
  input: { title: string; content?: string; kind?: MemoryKindName; memoryType?: MemoryTypeName },
): Promise<string> {
  const ingest = createClient(
    IngestService,
    createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(tenant.token)] }),
  );
  const content = input.content ?? `${input.title}.`;
  const res =
    input.kind === "document"
      ? await ingest.uploadDocument({ title: input.title, content })
      : await ingest.storeMemory({
          title: input.title,
          content,
          memoryType: MEMORY_TYPES[input.memoryType ?? "semantic"],
        });
  if (!res.memory?.memoryId) throw new Error(`ingest returned no memory for ${input.title}`);
  return res.memory.memoryId;
}

/** Asserts a call failed with `code`; returns the error for further checks (message, ErrorInfo). */
export async function expectCode(
  t: ExecutionContext,
  call: Promise<unknown>,
  code: Code,
): Promise<{ message: string; reason: string; field: string; metadata: Record<string, string> }> {
  const error = await t.throwsAsync(call);
  if (!(error instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(error)}`);
  t.is(error.code, code, `${Code[error.code]}: ${error.rawMessage}`);
  const [info] = error.findDetails(ErrorInfoSchema);
  return {
    message: error.rawMessage,
    reason: info?.reason ?? "",
    field: info?.field ?? "",
    metadata: info?.metadata ?? {},
  };
}
