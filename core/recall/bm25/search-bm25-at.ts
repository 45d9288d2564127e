import type { TransactionSql } from "../../store/database.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import { averageLength, type CollectionStatistics } from "./read-collection-statistics.js";
import type { ScoredChunk } from "./top-k-search.js";

/**
 * BM25 for point-in-time recall: the index holds current chunks only, so the chunks valid at `asOf`
 * are found through the GIN index on their tsvectors and scored from them directly. Document
 * frequencies and the average length are today's (docs/recall.md: historical statistics would cost a
 * scan of every version for a rare kind of query; the ranking difference is small).
 */
export async function searchBm25At(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  asOf: Date,
  k: number,
  filter?: ResolvedRecallFilter,
): Promise<ScoredChunk[]> {
  if (terms.length === 0) return [];
  // tsquery literal: quoted lexemes, embedded quotes and backslashes doubled (PostgreSQL "tsvector" input).
  const query = terms.map((t) => `'${t.term.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`).join(" | ");
  const rows = await tx<{ chunk_id: string; score: number }[]>`
    with q as (
      select * from unnest(${tx.array(terms.map((t) => t.term))}::text[],
                           ${tx.array(terms.map((t) => t.weight))}::float8[]) q(term, w)
    ), cand as (
      select c.id, c.tsv,
             (select coalesce(sum(coalesce(cardinality(a.positions), 1)), 0) from unnest(c.tsv) a)::int as dl
      from chunks c
      where c.tenant_id = ${tenantId} and c.tsv @@ ${query}::tsquery
        and c.valid_from <= ${asOf} and (c.valid_to is null or c.valid_to > ${asOf})
        and ${
          filter === undefined
            ? tx`true`
            : tx`exists (select 1 from memories m
                         where m.id = c.memory_id and m.tenant_id = c.tenant_id and ${filter.sql(tx)})`
        }
    )
    select cand.id as chunk_id,
           sum(q.w * bm25_tf_part(coalesce(cardinality(u.positions), 1), cand.dl, ${averageLength(collection)})) as score
    from cand cross join lateral unnest(cand.tsv) u join q on q.term = u.lexeme
    group by cand.id
    order by score desc, cand.id
    limit ${k}`;
  return rows.map((r) => ({ chunkId: r.chunk_id, score: Number(r.score) }));
}
