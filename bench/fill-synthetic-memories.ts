import type { EmbeddingProvider } from "../core/models/embedding-provider.js";
import type { Database } from "../core/store/database.js";
import type { VectorStore } from "../core/vectors/vector-store.js";
import type { SyntheticCorpus } from "./synthetic-corpus.js";

/**
 * One-chunk entries of `texts` inserted straight into a tenant's memories and chunks (status indexed,
 * tsvector, vector marked stored; titles "Notiz <from + i>"), in the order of `texts`: the rows the
 * caller then writes vectors for. One transaction.
 */
export async function insertIndexedEntries(
  db: Database,
  tenantId: string,
  space: string,
  texts: readonly string[],
  from: number,
): Promise<{ id: string; memory_id: string; valid_from: Date }[]> {
  return db.withTenant(tenantId, async (tx) => {
    const memories = await tx<{ id: string; n: number }[]>`
      insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256, status, chunks_written,
                            embedding_space)
      select ${tenantId}, gen_random_uuid(), 'entry', 'Notiz ' || (${from} + n), c,
             sha256(convert_to(c, 'UTF8')), 'indexed', 1, ${space}
      from unnest(${tx.array([...texts])}::text[]) with ordinality u(c, n)
      returning id, substring(title from 7)::int - ${from} as n`;
    const ids = memories.sort((a, b) => a.n - b.n).map((m) => m.id);
    return tx<{ id: string; memory_id: string; valid_from: Date }[]>`
      insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                          valid_from, vector_stored)
      select ${tenantId}, m, 0, c, 0, length(c), 0, to_tsvector('german', c), now(), true
      from unnest(${tx.array(ids)}::uuid[], ${tx.array([...texts])}::text[]) u(m, c)
      returning id, memory_id, valid_from`;
  });
}

/**
 * Writes `count` one-chunk entries of the synthetic corpus straight into one tenant's tables (rows,
 * tsvectors, vectors; status indexed), 500 per transaction: a large tenant in seconds instead of the
 * minutes the write path takes. Ends with what a running service would have caught up on: BM25
 * compaction and table statistics (bench:load, bench/count-statements.ts).
 */
export async function fillSyntheticMemories(
  storage: { readonly db: Database; readonly vectors: VectorStore },
  embedder: EmbeddingProvider,
  tenantId: string,
  corpus: SyntheticCorpus,
  count: number,
  onBatch?: (filled: number) => void,
): Promise<void> {
  const { db, vectors } = storage;
  for (let start = 0; start < count; start += 500) {
    const texts = Array.from({ length: Math.min(500, count - start) }, (_, i) => corpus.chunk(start + i));
    const rows = await insertIndexedEntries(db, tenantId, embedder.id, texts, start);
    const embedded = await embedder.embed(texts, "passage");
    await vectors.upsert(
      tenantId,
      embedder.id,
      rows.map((r, i) => ({
        chunkId: r.id,
        memoryId: r.memory_id,
        vector: embedded[i] ?? new Float32Array(embedder.dim),
        validFrom: r.valid_from,
        validTo: null,
      })),
    );
    onBatch?.(start + texts.length);
  }
  await db.sql`select bm25_compact(${tenantId})`;
  await db.sql.unsafe("vacuum analyze bm25_term_stats, bm25_stats_delta, chunks, memories");
}
