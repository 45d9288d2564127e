import type { TransactionSql } from "../../store/database.js";
import { spaceUnspacedWords } from "../../text/unspaced-scripts.js";

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
      from unnest(${tx.array(texts.map(spaceUnspacedWords))}::text[]) with ordinality p(text, i)
      cross join lateral unnest(to_tsvector('german', p.text)) u
    ), terms as (
      select distinct lexeme from lex
    ), stats as (
      -- One primary-key lookup per lexeme: as a join, the planner (which cannot estimate the
      -- lexemes) hashed the tenant's whole vocabulary on every recall (≈ 1.6 ms at 10k chunks).
      select t.lexeme,
             coalesce((select s.df from bm25_term_stats s
                       where s.tenant_id = ${tenantId} and s.term = t.lexeme), 0)
             + coalesce((select sum(d.df_delta) from bm25_stats_delta d
                         where d.tenant_id = ${tenantId} and d.term = t.lexeme), 0) as df
      from terms t
    )
    select lex.i, lex.lexeme, stats.df from lex join stats using (lexeme)`;
  return rows.map((r) => ({
    textIndex: r.i,
    lexeme: r.lexeme,
    df: Number(r.df),
  }));
}
