import type { TransactionSql } from "../../store/database.js";
import { type CompoundPair, isCompoundOf, LINKING_ELEMENTS } from "./compound-join-candidates.js";

/** A vocabulary term that joins two query words into one compound. */
export interface CompoundTerm {
  readonly term: string;
  readonly df: number;
}

const MAX_LINK = Math.max(...LINKING_ELEMENTS.map((l) => l.length));

/**
 * Looks the pairs up in the tenant's vocabulary: compacted statistics plus pending deltas (the C
 * collation of both makes the prefix a plain index range). The range's upper end comes in as a value:
 * under row-level security an expression like `prefix || chr(…)` in the condition is not leakproof,
 * and PostgreSQL would then filter the tenant's whole vocabulary instead of scanning the range.
 */
export async function findCompoundTerms(
  tx: TransactionSql,
  tenantId: string,
  pairs: readonly CompoundPair[],
): Promise<CompoundTerm[]> {
  if (pairs.length === 0) return [];
  const rows = await tx<{ prefix: string; head: string; lexeme: string; term: string; df: number }[]>`
    with p as (
      select p.prefix, p.upper, p.head, (select u.lexeme from unnest(to_tsvector('german', p.head)) u limit 1) as lexeme
      from unnest(${tx.array(pairs.map((p) => p.prefix))}::text[], ${tx.array(pairs.map((p) => p.head))}::text[],
                  ${tx.array(pairs.map((p) => `${p.prefix}\u{10FFFF}`))}::text[]) as p(prefix, head, upper)
    )
    select p.prefix, p.head, p.lexeme, s.term, s.df
    from p cross join lateral (
      select v.term, sum(v.df)::int as df
      from (
        select term, df from bm25_term_stats
        where tenant_id = ${tenantId} and term >= p.prefix and term < p.upper
        union all
        select term, df_delta from bm25_stats_delta
        where tenant_id = ${tenantId} and term >= p.prefix and term < p.upper
      ) v
      where length(v.term) between length(p.prefix) + 3 and length(p.prefix) + length(p.head) + ${MAX_LINK}
      group by v.term
      having sum(v.df) > 0
      limit 32
    ) s
    where p.lexeme is not null`;
  const found = new Map<string, CompoundTerm>();
  for (const r of rows) {
    if (isCompoundOf(r.term, r.prefix, r.lexeme, r.head)) found.set(r.term, { term: r.term, df: r.df });
  }
  return [...found.values()];
}
