import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { ExecutionContext } from "ava";
import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { type LoadModelsOptions, loadModels, type Models } from "../../core/models/load-models.js";
import { ErrorInfoSchema, PlanGateSchema } from "../../gen/memory/v1/errors_pb.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { startTestService, type TestService, type TestServiceOptions } from "../helpers/test-service.js";

/**
 * Shared by every test run (and the bench): parsing the FreeDict dictionaries takes about a minute; the
 * cache file loads in half a second. The lexicon's own lock lets concurrent test files build it once.
 */
export const LEXICON_CACHE = join(tmpdir(), "memory-service-lexicon-cache");

/** The real configured models (built-in embedder with its dictionary unless `env` says otherwise). */
export async function loadTestModels(
  env: Record<string, string> = {},
  options: LoadModelsOptions = {},
): Promise<Models> {
  const dataDir = await mkdtemp(join(tmpdir(), "memory-models-"));
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  const models = await loadModels(config, createLogger("silent"), {
    lexiconCacheDirectory: LEXICON_CACHE,
    ...options,
  });
  return {
    ...models,
    async close() {
      await models.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The test service with the real built-in embedder (or the given models). */
export async function startIngestService(options: TestServiceOptions = {}): Promise<TestService> {
  return startTestService({ ...options, models: options.models ?? (await loadTestModels(options.env)) });
}

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };

/** An IngestService client over real gRPC (HTTP/2) to the test service, as the given token. */
export function ingestClient(
  service: { readonly grpcUrl: string },
  token: string,
): Client<typeof IngestService> {
  return createClient(
    IngestService,
    createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(token)] }),
  );
}

export interface CoreFailure {
  readonly code: Code;
  readonly message: string;
  readonly reason: string;
  readonly field: string;
  readonly metadata: Record<string, string>;
  readonly planGate: { limit?: bigint; used?: bigint; message: string; upgradeUrl: string } | undefined;
}

/** Asserts a call failed with `code`; returns what the gateways would read from it. */
export async function expectFailure(
  t: ExecutionContext,
  call: Promise<unknown>,
  code: Code,
): Promise<CoreFailure> {
  const error = await t.throwsAsync(call);
  if (!(error instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(error)}`);
  t.is(error.code, code, `${Code[error.code]}: ${error.rawMessage}`);
  const [info] = error.findDetails(ErrorInfoSchema);
  const [gate] = error.findDetails(PlanGateSchema);
  return {
    code: error.code,
    message: error.rawMessage,
    reason: info?.reason ?? "",
    field: info?.field ?? "",
    metadata: info?.metadata ?? {},
    planGate: gate
      ? {
          ...(gate.limit !== undefined ? { limit: gate.limit } : {}),
          ...(gate.used !== undefined ? { used: gate.used } : {}),
          message: gate.message,
          upgradeUrl: gate.upgradeUrl,
        }
      : undefined,
  };
}

export interface MemoryRow {
  id: string;
  lineage_id: string;
  kind: string;
  memory_type: string;
  title: string;
  content: string;
  status: string;
  status_detail: string | null;
  chunks_written: number;
  embedding_space: string | null;
  source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  valid_from: Date;
  valid_to: Date | null;
}

/** A memory row as stored (read as the owner, outside RLS, to check what was really written). */
export async function readMemory(service: TestService, id: string): Promise<MemoryRow | undefined> {
  const [row] = await service.storage.db.sql<MemoryRow[]>`
    select id, lineage_id, kind, memory_type, title, content, status, status_detail, chunks_written,
           embedding_space, source, tags, metadata, valid_from, valid_to
    from memories where id = ${id}`;
  return row;
}

export interface ChunkRow {
  id: string;
  ordinal: number;
  content: string;
  tsv: string;
  vector_stored: boolean;
  valid_from: Date;
  valid_to: Date | null;
}

export async function readChunks(service: TestService, memoryId: string): Promise<ChunkRow[]> {
  return service.storage.db.sql<ChunkRow[]>`
    select id, ordinal, content, tsv::text as tsv, vector_stored, valid_from, valid_to
    from chunks where memory_id = ${memoryId} order by ordinal`;
}

/** Memories of a tenant with the given title (all versions). */
export async function memoriesTitled(
  service: TestService,
  tenantId: string,
  title: string,
): Promise<MemoryRow[]> {
  return service.storage.db.sql<MemoryRow[]>`
    select id, lineage_id, kind, memory_type, title, content, status, status_detail, chunks_written,
           embedding_space, source, tags, metadata, valid_from, valid_to
    from memories where tenant_id = ${tenantId} and title = ${title} order by recorded_at`;
}

/** German prose long enough for the asynchronous path (above 10,000 characters). */
export function longGermanText(paragraphs: number, topic = "Datenschutz"): string {
  return Array.from(
    { length: paragraphs },
    (_, i) =>
      `## Abschnitt ${i + 1}\n\nDer Abschnitt ${i + 1} über ${topic} beschreibt, wie personenbezogene Daten im Unternehmen verarbeitet, gespeichert und nach Ablauf der Aufbewahrungsfrist gelöscht werden. Verantwortlich ist die jeweilige Fachabteilung gemeinsam mit dem Datenschutzbeauftragten.`,
  ).join("\n\n");
}
