import { randomUUID } from "node:crypto";
import type { Bm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { B } from "../../core/recall/bm25/bm25-parameters.js";
import type { Database, Sql, TransactionSql } from "../../core/store/database.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";

/**
 * Rows written straight into memories/chunks, the way ingest writes them (german tsvector), for tests
 * of the BM25 index that need no embedder. The triggers of migration 0030 do the rest.
 */
export async function insertTenant(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql`insert into tenants (id, slug, name) values (${id}, ${`r-${id.slice(0, 8)}`}, 'recall test')`;
  return id;
}

export interface InsertedMemory {
  readonly memoryId: string;
  readonly chunkIds: string[];
}

export async function insertMemory(
  sql: Sql | TransactionSql,
  tenantId: string,
  chunks: readonly string[],
  options: { title?: string; validFrom?: Date; validTo?: Date | null; lineageId?: string } = {},
): Promise<InsertedMemory> {
  const memoryId = randomUUID();
  const validFrom = options.validFrom ?? new Date();
  const validTo = options.validTo ?? null;
  await sql`
    insert into memories (id, tenant_id, lineage_id, kind, title, content, content_sha256, status, valid_from, valid_to)
    values (${memoryId}, ${tenantId}, ${options.lineageId ?? randomUUID()}, 'entry', ${options.title ?? "t"},
            ${chunks.join("\n\n")}, sha256(convert_to(${memoryId}, 'UTF8')), 'indexed', ${validFrom}, ${validTo})`;
  const rows = await sql<{ id: string; ordinal: number }[]>`
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                        valid_from, valid_to)
    select ${tenantId}, ${memoryId}, (o - 1)::int, c, 0, length(c), 0, to_tsvector('german', c), ${validFrom}, ${validTo}
    from unnest(${sql.array([...chunks])}::text[]) with ordinality u(c, o)
    returning id, ordinal`;
  return { memoryId, chunkIds: rows.sort((a, b) => a.ordinal - b.ordinal).map((r) => r.id) };
}

/** Closes a version the way update_fact does: memory and chunks get valid_to. */
export async function supersede(sql: Sql | TransactionSql, memoryId: string, at = new Date()): Promise<void> {
  await sql`update memories set valid_to = ${at} where id = ${memoryId}`;
  await sql`update chunks set valid_to = ${at} where memory_id = ${memoryId}`;
}

/** What the index should hold, recounted from the current chunks' tsvectors. */
export async function recount(sql: Sql, tenantId: string) {
  const postings = await sql<{ term: string; chunk_id: string; tf: number; doc_len: number }[]>`
    select u.lexeme as term, c.id as chunk_id, cardinality(u.positions) as tf,
           (select sum(cardinality(a.positions)) from unnest(c.tsv) a)::int as doc_len
    from chunks c cross join lateral unnest(c.tsv) u
    where c.tenant_id = ${tenantId} and c.valid_to is null`;
  const [collection] = await sql<{ n: number; total: number }[]>`
    select count(*)::int as n,
           coalesce(sum((select sum(cardinality(a.positions)) from unnest(c.tsv) a)), 0)::int as total
    from chunks c where c.tenant_id = ${tenantId} and c.valid_to is null`;
  const df = new Map<string, number>();
  for (const p of postings) df.set(p.term, (df.get(p.term) ?? 0) + 1);
  return { postings, df, chunkCount: collection?.n ?? 0, totalLength: collection?.total ?? 0 };
}

/** The statistics as readers see them: df and collection figures (compacted + pending deltas). */
export async function readIndex(sql: Sql, tenantId: string) {
  const dfRows = await sql<{ term: string; df: number }[]>`
    select term, sum(df)::int as df from (
      select term, df from bm25_term_stats where tenant_id = ${tenantId}
      union all select term, df_delta from bm25_stats_delta where tenant_id = ${tenantId} and term <> ''
    ) x group by term having sum(df) <> 0`;
  const [collection] = await sql<{ n: number; total: number }[]>`
    select (coalesce((select chunk_count from bm25_collection where tenant_id = ${tenantId}), 0)
            + coalesce((select sum(df_delta) from bm25_stats_delta where tenant_id = ${tenantId} and term = ''), 0))::int as n,
           (coalesce((select total_len from bm25_collection where tenant_id = ${tenantId}), 0)
            + coalesce((select sum(len_delta) from bm25_stats_delta where tenant_id = ${tenantId} and term = ''), 0))::int as total`;
  return {
    df: new Map(dfRows.map((r) => [r.term, r.df])),
    chunkCount: collection?.n ?? 0,
    totalLength: collection?.total ?? 0,
  };
}

/**
 * The chunk ids (sorted) a one-word search finds from a BM25 index cache in a fresh snapshot, driven
 * the way recall drives it; undefined: the cache sent it to SQL.
 */
export async function findWithIndex(
  db: Database,
  cache: Bm25IndexCache,
  tenantId: string,
  word: string,
): Promise<string[] | undefined> {
  return withTenantSnapshot(db, tenantId, async (tx) => {
    const view = await cache.open(tx, tenantId, async () => 0);
    const [term] = await tx<
      { l: string }[]
    >`select u.lexeme as l from unnest(to_tsvector('german', ${word})) u`;
    return view
      ?.search([{ term: term?.l ?? word, weight: 1 }], { avgdl: 10, b: B }, 100)
      ?.map((h) => h.chunkId)
      .sort();
  });
}
