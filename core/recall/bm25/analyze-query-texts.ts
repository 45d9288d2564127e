import type { TransactionSql } from "../../store/database.js";

/** A lexeme of one analysed text, with its statistics in the tenant's current chunks. */
export interface AnalyzedLexeme {
  readonly textIndex: number;
  readonly lexeme: string;
  readonly df: number;
}

/**
 * Runs texts through the same `german` analyzer as the chunks' tsvectors (so query and index agree on
 * stemming, umlaut folding and stop words) and looks up each lexeme's document frequency — compacted
 * figure plus pending deltas — in the same statement.
 */
export async function analyzeQueryTexts(
  tx: TransactionSql,
  tenantId: string,
  texts: readonly string[],
): Promise<AnalyzedLexeme[]> {
  if (texts.length === 0) return [];
  const rows = await tx<{ i: number; lexeme: string; df: string }[]>`
    with lex as (
      select distinct (p.i - 1)::int as i, u.lexeme
      from unnest(${tx.array([...texts])}::text[]) with ordinality p(text, i)
      cross join lateral unnest(to_tsvector('german', p.text)) u
    ), terms as (
      select distinct lexeme from lex
    ), stats as (
      select t.lexeme, coalesce(s.df, 0) + coalesce(d.df, 0) as df
      from terms t
      left join bm25_term_stats s on s.tenant_id = ${tenantId} and s.term = t.lexeme
      left join lateral (
        select sum(df_delta) as df from bm25_stats_delta
        where tenant_id = ${tenantId} and term = t.lexeme
      ) d on true
    )
    select lex.i, lex.lexeme, stats.df from lex join stats using (lexeme)`;
  return rows.map((r) => ({
    textIndex: r.i,
    lexeme: r.lexeme,
    df: Number(r.df),
  }));
}
