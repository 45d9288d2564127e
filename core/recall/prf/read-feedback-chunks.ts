import type { TransactionSql } from "../../store/database.js";

/** Feedback chunks' lexemes with term frequencies, and each lexeme's document frequency. */
export interface FeedbackLexemes {
  readonly chunks: ReadonlyMap<string, { lexeme: string; tf: number }[]>;
  readonly df: ReadonlyMap<string, number>;
}

/**
 * Reads the feedback chunks' tsvectors (tf as BM25 counts it: positions, 1 to 32,767) in the recall's
 * snapshot, and the document frequency — compacted figure plus pending deltas, as the query's own
 * lexemes get it — of the lexemes at least `minChunks` of them share: only those can be chosen, and
 * with `minChunks` 2 that is a small part of the chunks' vocabulary (the lookups are the cost).
 */
export async function readFeedbackChunks(
  tx: TransactionSql,
  tenantId: string,
  chunkIds: readonly string[],
  minChunks: number,
): Promise<FeedbackLexemes> {
  if (chunkIds.length === 0) return { chunks: new Map(), df: new Map() };
  const rows = await tx<{ id: string; lexeme: string; tf: number; df: string | null }[]>`
    with fb as (
      select c.id, u.lexeme, least(coalesce(cardinality(u.positions), 1), 32767)::int as tf
      from chunks c cross join lateral unnest(c.tsv) u
      where c.tenant_id = ${tenantId} and c.id = any(${tx.array([...chunkIds])}::uuid[])
    ), shared as (
      select lexeme from fb group by lexeme having count(*) >= ${minChunks}
    ), stats as (
      select s.lexeme,
             coalesce((select t.df from bm25_term_stats t
                       where t.tenant_id = ${tenantId} and t.term = s.lexeme), 0)
             + coalesce((select sum(d.df_delta) from bm25_stats_delta d
                         where d.tenant_id = ${tenantId} and d.term = s.lexeme), 0) as df
      from shared s
    )
    select fb.id, fb.lexeme, fb.tf, stats.df::text as df from fb left join stats using (lexeme)`;
  const chunks = new Map<string, { lexeme: string; tf: number }[]>();
  const df = new Map<string, number>();
  for (const row of rows) {
    const list = chunks.get(row.id) ?? [];
    list.push({ lexeme: row.lexeme, tf: row.tf });
    chunks.set(row.id, list);
    if (row.df !== null) df.set(row.lexeme, Number(row.df));
  }
  return { chunks, df };
}
