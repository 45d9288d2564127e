import type { TransactionSql } from "../store/database.js";
import { spaceUnspacedWords } from "../text/unspaced-scripts.js";
import type { PreparedChunk } from "./prepare-memory-content.js";

export interface ChunkOwner {
  readonly tenantId: string;
  readonly memoryId: string;
  /** The version's valid_from; unset: the transaction's now(), as the version's own default. */
  readonly validFrom: Date | undefined;
  readonly validTo: Date | null;
}

/** One version's chunks, to insert with other versions' of the same tenant. */
export interface OwnedChunks {
  readonly owner: ChunkOwner;
  readonly chunks: readonly PreparedChunk[];
}

/** Inserts one memory version's chunks; returns their ids in ordinal order. */
export async function insertChunks(
  tx: TransactionSql,
  owner: ChunkOwner,
  chunks: readonly PreparedChunk[],
): Promise<string[]> {
  const [ids] = await insertVersionsChunks(tx, [{ owner, chunks }]);
  return ids ?? [];
}

/**
 * Inserts the chunks of one or more versions of one tenant in one statement: the `german` tsvector
 * (DESIGN "Storage": Snowball stemmer + stop words; its positions give BM25's document length).
 * Validity is copied from each version so recall filters chunks without a join (a chunk with a
 * valid_from of its own, a conversation turn, keeps it). One statement also means one run of the BM25 statistics trigger for all of them
 * (migration 0030: its per-statement work was most of a one-chunk memory's PostgreSQL time, issue #23).
 * Returns each version's chunk ids in ordinal order. `vectorStored`: the caller writes the vectors
 * before this transaction commits (a shared batch, decide-writes-together.ts), so no update follows.
 */
export async function insertVersionsChunks(
  tx: TransactionSql,
  versions: readonly OwnedChunks[],
  options: { readonly vectorStored?: boolean } = {},
): Promise<string[][]> {
  const rows = versions.flatMap(({ owner, chunks }) => chunks.map((chunk) => ({ owner, chunk })));
  const tenantId = versions[0]?.owner.tenantId;
  if (rows.length === 0 || tenantId === undefined) return versions.map(() => []);
  if (versions.some((v) => v.owner.tenantId !== tenantId)) {
    throw new Error("insertVersionsChunks: every version must belong to one tenant");
  }
  const inserted = await tx<{ id: string; memory_id: string; ordinal: number }[]>`
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count,
                        tsv, valid_from, valid_to, vector_stored)
    select ${tenantId}, c.memory_id, c.ordinal, c.content, c.char_start, c.char_end,
           c.token_count, to_tsvector('german', c.index_text), coalesce(c.valid_from, now()), c.valid_to,
           ${options.vectorStored === true}
    from unnest(${tx.array(rows.map((r) => r.owner.memoryId))}::uuid[],
                ${tx.array(rows.map((r) => (r.chunk.validFrom ?? r.owner.validFrom)?.toISOString() ?? null))}::timestamptz[],
                ${tx.array(rows.map((r) => r.owner.validTo?.toISOString() ?? null))}::timestamptz[],
                ${tx.array(rows.map((r) => r.chunk.ordinal))}::int[],
                ${tx.array(rows.map((r) => r.chunk.text))}::text[],
                ${tx.array(rows.map((r) => spaceUnspacedWords(r.chunk.indexText)))}::text[],
                ${tx.array(rows.map((r) => r.chunk.charStart))}::int[],
                ${tx.array(rows.map((r) => r.chunk.charEnd))}::int[],
                ${tx.array(rows.map((r) => r.chunk.tokenCount))}::int[])
         as c(memory_id, valid_from, valid_to, ordinal, content, index_text, char_start, char_end, token_count)
    returning id, memory_id, ordinal`;
  const byMemory = new Map<string, { id: string; ordinal: number }[]>();
  for (const row of inserted) {
    const list = byMemory.get(row.memory_id) ?? [];
    list.push(row);
    byMemory.set(row.memory_id, list);
  }
  return versions.map(({ owner }) =>
    (byMemory.get(owner.memoryId) ?? []).sort((a, b) => a.ordinal - b.ordinal).map((r) => r.id),
  );
}
