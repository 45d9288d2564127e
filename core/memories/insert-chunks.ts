import type { TransactionSql } from "../store/database.js";
import type { PreparedChunk } from "./prepare-memory-content.js";

export interface ChunkOwner {
  readonly tenantId: string;
  readonly memoryId: string;
  readonly validFrom: Date;
  readonly validTo: Date | null;
}

/**
 * Inserts a memory version's chunks in one statement: the `german` tsvector (DESIGN "Storage":
 * Snowball stemmer + stop words) and lexeme_count, the number of lexeme occurrences — BM25's document
 * length. Validity is copied from the version so recall filters chunks without a join. Returns the
 * chunk ids in ordinal order.
 */
export async function insertChunks(
  tx: TransactionSql,
  owner: ChunkOwner,
  chunks: readonly PreparedChunk[],
): Promise<string[]> {
  if (chunks.length === 0) return [];
  const rows = await tx<{ id: string; ordinal: number }[]>`
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count,
                        tsv, lexeme_count, valid_from, valid_to)
    select ${owner.tenantId}, ${owner.memoryId}, c.ordinal, c.content, c.char_start, c.char_end,
           c.token_count, v.tsv,
           (select coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0) from unnest(v.tsv) u)::int,
           ${owner.validFrom}, ${owner.validTo}
    from unnest(${tx.array(chunks.map((c) => c.ordinal))}::int[],
                ${tx.array(chunks.map((c) => c.text))}::text[],
                ${tx.array(chunks.map((c) => c.indexText))}::text[],
                ${tx.array(chunks.map((c) => c.charStart))}::int[],
                ${tx.array(chunks.map((c) => c.charEnd))}::int[],
                ${tx.array(chunks.map((c) => c.tokenCount))}::int[])
         as c(ordinal, content, index_text, char_start, char_end, token_count)
    cross join lateral (select to_tsvector('german', c.index_text) as tsv) v
    returning id, ordinal`;
  return rows.sort((a, b) => a.ordinal - b.ordinal).map((r) => r.id);
}
