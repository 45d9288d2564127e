import type { TransactionSql } from "../../store/database.js";
import { tfPartBound } from "./impact-bound.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import { averageLength, type CollectionStatistics } from "./read-collection-statistics.js";
import { type EssentialSplit, splitEssentialTerms } from "./split-essential-terms.js";
import {
  createTopKSearch,
  type ListRead,
  type LookupRequest,
  type LookupRow,
  type Posting,
  type ScoredChunk,
  type WeightedTerm,
} from "./top-k-search.js";

export interface Bm25SearchStats {
  /** "threshold": impact-ordered reads settled it; "maxscore": the MaxScore statement did. */
  readonly finishedBy: "threshold" | "maxscore";
  /** MaxScore statements run (a second one when the first guess of the threshold was too high). */
  readonly statements: number;
  readonly essentialTerms: number;
}

export interface Bm25Result {
  readonly hits: ScoredChunk[];
  readonly stats: Bm25SearchStats;
}

/** Queries of at most this many terms try the impact-ordered reads first. */
const THRESHOLD_MAX_TERMS = 2;
const THRESHOLD_ROUNDS = 3;
const MAX_LOOKUPS = 256;
/**
 * First guess of the k-th best score, as a share of the sum of the term weights. Measured on the
 * synthetic 100k-chunk corpus (bench/recall.ts): the k-th score is about 0.6 of it at the median; 0.4
 * is rarely too high, and a guess that is too high costs one more statement, not a wrong answer.
 */
const THRESHOLD_GUESS = 0.4;

/**
 * Exact top-k BM25 over the tenant's current chunks (docs/recall.md "BM25").
 *
 * One- and two-term queries read the best postings of each list in impact order until no unseen chunk
 * can enter the top k (top-k-search.ts). Longer queries run MaxScore inside PostgreSQL: a guess of the
 * k-th score splits the terms; the essential terms' posting lists are summed per chunk, chunks that
 * cannot beat the k-th partial sum even with every non-essential term are dropped, and the rest get
 * their non-essential contributions by primary-key lookups — one statement, k rows back. If the k-th
 * score found is below what the non-essential terms alone could reach, the guess was too high and the
 * statement runs again split by that (certified) score.
 */
export async function searchBm25(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
): Promise<Bm25Result> {
  if (terms.length === 0)
    return { hits: [], stats: { finishedBy: "threshold", statements: 0, essentialTerms: 0 } };
  const avgdl = averageLength(collection);
  const keyAvgdl = collection.keyAvgdl > 0 ? collection.keyAvgdl : avgdl;
  if (terms.length <= THRESHOLD_MAX_TERMS) {
    const hits = await thresholdSearch(tx, tenantId, terms, avgdl, keyAvgdl, k);
    if (hits !== undefined)
      return { hits, stats: { finishedBy: "threshold", statements: 0, essentialTerms: 0 } };
  }
  const bounds = terms.map((t) => t.weight * tfPartBound(t.maxImpact, avgdl, keyAvgdl));
  const guess = THRESHOLD_GUESS * terms.reduce((sum, t) => sum + t.weight, 0);
  const first = splitEssentialTerms(bounds, guess);
  const hits = await maxScore(tx, tenantId, terms, first, avgdl, k);
  const kth = hits.length >= k ? (hits[k - 1]?.score ?? 0) : 0;
  const essentialTerms = first.essential.filter(Boolean).length;
  if (first.nonEssentialBound <= kth)
    return { hits, stats: { finishedBy: "maxscore", statements: 1, essentialTerms } };
  const second = splitEssentialTerms(bounds, kth);
  return {
    hits: await maxScore(tx, tenantId, terms, second, avgdl, k),
    stats: { finishedBy: "maxscore", statements: 2, essentialTerms: second.essential.filter(Boolean).length },
  };
}

/** The threshold algorithm over impact-ordered lists; undefined when it does not settle quickly. */
async function thresholdSearch(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly WeightedTerm[],
  avgdl: number,
  keyAvgdl: number,
  k: number,
): Promise<ScoredChunk[] | undefined> {
  const search = createTopKSearch(terms, { k, avgdl, keyAvgdl });
  let reads = search.nextReads();
  for (let round = 0; reads.length > 0 && round < THRESHOLD_ROUNDS; round++) {
    const pages = await readPostings(tx, tenantId, terms, reads);
    for (const [i, read] of reads.entries()) search.addPage(read, pages[i] ?? []);
    reads = search.nextReads();
  }
  if (reads.length > 0 || search.openCount() > MAX_LOOKUPS) return undefined;
  for (let request = search.pendingLookups(MAX_LOOKUPS); request.chunkIds.length > 0; ) {
    search.addLookups(request, await lookupPostings(tx, tenantId, terms, request));
    request = search.pendingLookups(MAX_LOOKUPS);
  }
  return search.results();
}

async function readPostings(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly WeightedTerm[],
  reads: readonly ListRead[],
): Promise<Posting[][]> {
  const rows = await tx<{ r: number; chunk_id: string; tf: number; doc_len: number; impact: number }[]>`
    select (q.r - 1)::int as r, p.chunk_id, p.tf, p.doc_len, p.impact
    from unnest(${tx.array(reads.map((read) => terms[read.termIndex]?.term ?? ""))}::text[],
                ${tx.array(reads.map((read) => read.offset))}::int[],
                ${tx.array(reads.map((read) => read.limit))}::int[]) with ordinality q(term, off, lim, r)
    cross join lateral (
      select chunk_id, tf, doc_len, impact from bm25_postings
      where tenant_id = ${tenantId} and term = q.term
      order by impact desc, chunk_id
      offset q.off limit q.lim
    ) p`;
  const pages: Posting[][] = reads.map(() => []);
  for (const row of rows) {
    pages[row.r]?.push({ chunkId: row.chunk_id, tf: row.tf, docLen: row.doc_len, impact: row.impact });
  }
  return pages;
}

async function lookupPostings(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly WeightedTerm[],
  request: LookupRequest,
): Promise<LookupRow[]> {
  const rows = await tx<{ t: number; chunk_id: string; tf: number; doc_len: number }[]>`
    select q.t, p.chunk_id, p.tf, p.doc_len
    from unnest(${tx.array(request.termIndexes.map((t) => terms[t]?.term ?? ""))}::text[],
                ${tx.array([...request.termIndexes])}::int[]) q(term, t)
    join bm25_postings p on p.tenant_id = ${tenantId} and p.term = q.term
     and p.chunk_id = any(${tx.array([...request.chunkIds])}::uuid[])`;
  return rows.map((r) => ({ chunkId: r.chunk_id, termIndex: r.t, tf: r.tf, docLen: r.doc_len }));
}

/** Exact top k among the chunks that contain at least one essential term. */
async function maxScore(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly WeightedTerm[],
  split: EssentialSplit,
  avgdl: number,
  k: number,
): Promise<ScoredChunk[]> {
  const rows = await tx<{ chunk_id: string; score: number }[]>`
    with q as (
      select * from unnest(${tx.array(terms.map((t) => t.term))}::text[],
                           ${tx.array(terms.map((t) => t.weight))}::float8[],
                           ${tx.array(split.essential.map((e) => (e ? 1 : 0)))}::int[]) q(term, w, essential)
    ), ess as (
      select p.chunk_id, min(p.doc_len) as dl, sum(q.w * bm25_tf_part(p.tf, p.doc_len, ${avgdl})) as s
      from q cross join lateral (
        select chunk_id, tf, doc_len from bm25_postings where tenant_id = ${tenantId} and term = q.term
      ) p
      where q.essential = 1
      group by p.chunk_id
    ), theta as (
      select coalesce((select s from ess order by s desc offset ${k - 1} limit 1), 0) as v
    ), cand as (
      select e.* from ess e, theta where e.s + ${split.nonEssentialBound}::float8 >= theta.v
    )
    select c.chunk_id,
           c.s + coalesce((
             select sum(q.w * bm25_tf_part(p.tf, c.dl, ${avgdl}))
             from q join bm25_postings p on p.tenant_id = ${tenantId} and p.term = q.term and p.chunk_id = c.chunk_id
             where q.essential = 0), 0) as score
    from cand c
    order by score desc, c.chunk_id
    limit ${k}`;
  return rows.map((r) => ({ chunkId: r.chunk_id, score: Number(r.score) }));
}
