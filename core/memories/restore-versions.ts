import type postgres from "postgres";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { TransactionSql } from "../store/database.js";
import { spaceUnspacedWords } from "../text/unspaced-scripts.js";
import type { VectorStore } from "../vectors/vector-store.js";
import { contentSha256 } from "./content-hash.js";
import type { MemoryStatusName } from "./insert-memory-row.js";
import { chunkContent, embedChunks, type PreparedChunk } from "./prepare-memory-content.js";
import type { MemoryKindName, MemoryTypeName } from "./relation-types.js";

/** Times as ISO 8601 text, as given (PostgreSQL parses them; a Date would cut microseconds). */
type Instant = string;

/** A memory version as it was elsewhere (an export bundle), with the ids it gets here. */
export interface RestoredVersion {
  readonly id: string;
  readonly lineageId: string;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
  readonly title: string;
  readonly content: string;
  readonly source: string | null;
  readonly tags: readonly string[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly status: MemoryStatusName;
  readonly statusDetail: string | null;
  readonly updateReason: string | null;
  readonly validFrom: Instant;
  readonly validTo: Instant | null;
  readonly recordedAt: Instant;
  readonly createdAt: Instant;
  readonly updatedAt: Instant;
}

/** An edge as it was elsewhere, with the ids it gets here (its ends are restored versions). */
export interface RestoredEdge {
  readonly id: string;
  readonly fromId: string;
  readonly toId: string;
  readonly relType: string;
  readonly inverseOf: string | null;
  readonly validFrom: Instant;
  readonly validTo: Instant | null;
  readonly createdAt: Instant;
}

export interface RestoreDeps {
  /** Chunks are cut again and embedded with this workspace's embedder. */
  readonly embedder: EmbeddingProvider;
  /** Appends inside the caller's transaction's lifetime (a bulk writer: vector-store.ts forBulkWrite). */
  readonly vectors: Pick<VectorStore, "upsert">;
}

/** Restores versions and edges in batches, inside one transaction of the caller's. */
export interface Restore {
  /** Adds a version; the pending batch is written once it is full. */
  addVersion(version: RestoredVersion): Promise<void>;
  /** Adds an edge; the versions still pending are written first (an edge needs both its ends). */
  addEdge(edge: RestoredEdge): Promise<void>;
  /** Writes whatever is pending. */
  finish(): Promise<void>;
  /** The chunks written so far (each has its vector). */
  chunksWritten(): number;
}

/** A batch is written once it reaches any of these: bounds memory whatever the number of versions. */
const BATCH_VERSIONS = 256;
const BATCH_CHUNKS = 256;
const BATCH_CONTENT_CHARS = 4 * 1024 * 1024;
const BATCH_EDGES = 1000;

interface PendingVersion {
  readonly version: RestoredVersion;
  readonly chunks: readonly PreparedChunk[];
}

/**
 * Restores memory versions (valid, recorded, created and updated times, lineage, status) and edges
 * (both directions, validity, inverse) as they were, into the caller's transaction of `tenantId`
 * (import, docs/export.md "Import"): unlike the other writes, nothing is decided here — no quota, no
 * identical check, no event. Chunks are cut again and embedded as the batches go by; their vectors
 * are appended while the transaction is open, so the chunks are stored vector_stored: if it does not
 * commit, the caller drops the vector tables. Memory stays bounded: one batch of records and their
 * vectors. `onBatchWritten` runs after each batch (the import bounds its heap there). A row that
 * breaks a rule of the schema throws PostgreSQL's error (class 23).
 */
export function openRestore(
  deps: RestoreDeps,
  tx: TransactionSql,
  tenantId: string,
  options: { readonly onBatchWritten?: () => void } = {},
): Restore {
  let pending: PendingVersion[] = [];
  let pendingChunks = 0;
  let pendingChars = 0;
  let edges: RestoredEdge[] = [];
  let chunksWritten = 0;

  const flushVersions = async () => {
    if (pending.length === 0) return;
    chunksWritten += await writeVersions(deps, tx, tenantId, pending);
    pending = [];
    pendingChunks = 0;
    pendingChars = 0;
    options.onBatchWritten?.();
  };
  const flushEdges = async () => {
    if (edges.length === 0) return;
    await writeEdges(tx, tenantId, edges);
    edges = [];
    options.onBatchWritten?.();
  };
  return {
    async addVersion(version) {
      const chunks = version.status === "failed" ? [] : chunkContent(version, deps.embedder);
      pending.push({ version, chunks });
      pendingChunks += chunks.length;
      pendingChars += version.content.length;
      if (
        pending.length >= BATCH_VERSIONS ||
        pendingChunks >= BATCH_CHUNKS ||
        pendingChars >= BATCH_CONTENT_CHARS
      )
        await flushVersions();
    },
    async addEdge(edge) {
      await flushVersions();
      edges.push(edge);
      if (edges.length >= BATCH_EDGES) await flushEdges();
    },
    async finish() {
      await flushVersions();
      await flushEdges();
    },
    chunksWritten: () => chunksWritten,
  };
}

/** One batch of versions: rows, chunks (tsvector, BM25 via the triggers) and their vectors. */
async function writeVersions(
  deps: RestoreDeps,
  tx: TransactionSql,
  tenantId: string,
  batch: readonly PendingVersion[],
): Promise<number> {
  const space = deps.embedder.id;
  const allChunks = batch.flatMap((p) => p.chunks);
  const vectors = await embedChunks(deps.embedder, allChunks);
  const rows = batch.map(({ version: m, chunks }) => ({
    id: m.id,
    lineage_id: m.lineageId,
    kind: m.kind,
    memory_type: m.memoryType,
    title: m.title,
    content: m.content,
    content_sha256: contentSha256(m.content).toString("hex"),
    source: m.source,
    tags: m.tags,
    metadata: m.metadata,
    status: m.status,
    status_detail: m.statusDetail,
    chunks_written: chunks.length,
    embedding_space: m.status === "failed" ? null : space,
    update_reason: m.updateReason,
    valid_from: m.validFrom,
    valid_to: m.validTo,
    recorded_at: m.recordedAt,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }));
  await tx`
    insert into memories (id, tenant_id, lineage_id, kind, memory_type, title, content, content_sha256,
                          source, tags, metadata, status, status_detail, chunks_written, embedding_space,
                          update_reason, valid_from, valid_to, recorded_at, created_at, updated_at)
    select r.id, ${tenantId}, r.lineage_id, r.kind, r.memory_type, r.title, r.content,
           decode(r.content_sha256, 'hex'), r.source,
           array(select jsonb_array_elements_text(r.tags)), r.metadata, r.status, r.status_detail,
           r.chunks_written, r.embedding_space, r.update_reason, r.valid_from, r.valid_to, r.recorded_at,
           r.created_at, r.updated_at
    from jsonb_to_recordset(${tx.json(rows as unknown as postgres.JSONValue)}) as r(
      id uuid, lineage_id uuid, kind text, memory_type text, title text, content text,
      content_sha256 text, source text, tags jsonb, metadata jsonb, status text, status_detail text,
      chunks_written int, embedding_space text, update_reason text, valid_from timestamptz,
      valid_to timestamptz, recorded_at timestamptz, created_at timestamptz, updated_at timestamptz)`;
  if (allChunks.length === 0) return 0;
  const chunkRows = batch.flatMap(({ version: m, chunks }) =>
    chunks.map((c) => ({
      memory_id: m.id,
      ordinal: c.ordinal,
      content: c.text,
      index_text: spaceUnspacedWords(c.indexText),
      char_start: c.charStart,
      char_end: c.charEnd,
      token_count: c.tokenCount,
      valid_from: m.validFrom,
      valid_to: m.validTo,
    })),
  );
  const inserted = await tx<
    { id: string; memory_id: string; ordinal: number; valid_from: Date; valid_to: Date | null }[]
  >`
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                        valid_from, valid_to, vector_stored)
    select ${tenantId}, r.memory_id, r.ordinal, r.content, r.char_start, r.char_end, r.token_count,
           to_tsvector('german', r.index_text), r.valid_from, r.valid_to, true
    from jsonb_to_recordset(${tx.json(chunkRows as unknown as postgres.JSONValue)}) as r(
      memory_id uuid, ordinal int, content text, index_text text, char_start int, char_end int,
      token_count int, valid_from timestamptz, valid_to timestamptz)
    returning id, memory_id, ordinal, valid_from, valid_to`;
  const vectorOf = new Map<string, Float32Array>();
  chunkRows.forEach((c, i) => {
    vectorOf.set(`${c.memory_id}:${c.ordinal}`, vectors[i] ?? new Float32Array(0));
  });
  await deps.vectors.upsert(
    tenantId,
    space,
    inserted.map((c) => ({
      chunkId: c.id,
      memoryId: c.memory_id,
      vector: vectorOf.get(`${c.memory_id}:${c.ordinal}`) ?? new Float32Array(0),
      validFrom: c.valid_from,
      validTo: c.valid_to,
    })),
    // The caller counts the table's rows once at the end instead.
    { readBack: false },
  );
  return inserted.length;
}

async function writeEdges(
  tx: TransactionSql,
  tenantId: string,
  batch: readonly RestoredEdge[],
): Promise<void> {
  const rows = batch.map((e) => ({
    id: e.id,
    from_id: e.fromId,
    to_id: e.toId,
    rel_type: e.relType,
    inverse_of: e.inverseOf,
    valid_from: e.validFrom,
    valid_to: e.validTo,
    created_at: e.createdAt,
  }));
  await tx`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from, valid_to, created_at)
    select r.id, ${tenantId}, r.from_id, r.to_id, r.rel_type, r.inverse_of, r.valid_from, r.valid_to, r.created_at
    from jsonb_to_recordset(${tx.json(rows as unknown as postgres.JSONValue)}) as r(
      id uuid, from_id uuid, to_id uuid, rel_type text, inverse_of uuid, valid_from timestamptz,
      valid_to timestamptz, created_at timestamptz)`;
}
