import { createHash } from "node:crypto";
import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { ExecutionContext } from "ava";
import { createLogger } from "../../config/logger.js";
import type { MemoryKindName, MemoryTypeName } from "../../core/graph/relation-types.js";
import { finishIndexing } from "../../core/ingest/finish-indexing.js";
import { prepareMemoryContent } from "../../core/ingest/prepare-memory-content.js";
import { writeMemoryVersion } from "../../core/ingest/write-memory-version.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Models } from "../../core/models/load-models.js";
import { ErrorInfoSchema } from "../../gen/memory/v1/errors_pb.js";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
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

/**
 * Stores a memory through ingest's write path (prepare → write version → index vectors), the same
 * code StoreMemory/UploadDocument run, so chunks, vectors and the outbox event are real.
 */
export async function storeMemory(
  service: TestService,
  tenantId: string,
  input: { title: string; content?: string; kind?: MemoryKindName; memoryType?: MemoryTypeName },
): Promise<string> {
  const content = input.content ?? `${input.title}.`;
  const deps = { db: service.storage.db, vectors: service.storage.vectors, logger: quietLogger };
  const prepared = await prepareMemoryContent(service.models.embedder, {
    title: input.title,
    content,
  });
  const written = await service.storage.db.withTenant(tenantId, (tx) =>
    writeMemoryVersion(tx, {
      tenantId,
      kind: input.kind ?? "entry",
      memoryType: input.memoryType ?? "semantic",
      title: input.title,
      content,
      prepared,
      event: "memory.created",
    }),
  );
  await finishIndexing(deps, tenantId, written, prepared);
  return written.memoryId;
}

const quietLogger = createLogger("silent");

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
