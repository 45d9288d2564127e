import type { TransactionSql } from "../../store/database.js";
import { type LengthNormalisation, tfPart } from "./bm25-parameters.js";
import type { ScoredChunk, WeightedTerm } from "./scored-chunk.js";

/** One lexeme of one chunk, as the migration's tf rule counts it (tsvector positions, at least 1). */
export interface LexemeRow {
  readonly chunkId: string;
  readonly lexeme: string;
  readonly tf: number;
}

/** Chunks a query may return (issue #22 filters), as a bitset over the index's chunk ordinals. */
export type AllowedChunks = Uint32Array;

/**
 * A derived BM25 index of one tenant's current chunks, held in process (ADR 0230): per lexeme the
 * chunk ordinals and term frequencies, per chunk its length. Scores are exactly the SQL design's
 * (same idf weights from the caller, same tf part and average length), ties by chunk id.
 * Not yet wired into recall: bench/bm25-peers.ts measures it against the current design.
 */
export interface CompactBm25Index {
  readonly chunkIds: readonly string[];
  /** Approximate bytes of the index's arrays. */
  readonly bytes: number;
  /** Exact top k; `allowed` restricts the chunks before scoring (top k over the allowed ones). */
  search(
    terms: readonly WeightedTerm[],
    norm: LengthNormalisation,
    k: number,
    allowed?: AllowedChunks,
  ): ScoredChunk[];
  /** The bitset of these chunk ids (unknown ids are ignored). */
  allow(chunkIds: Iterable<string>): AllowedChunks;
}

export function buildCompactBm25Index(rows: Iterable<LexemeRow>): CompactBm25Index {
  const ordinal = new Map<string, number>();
  const lists = new Map<string, { docs: number[]; tfs: number[] }>();
  const lengths: number[] = [];
  for (const row of rows) {
    let doc = ordinal.get(row.chunkId);
    if (doc === undefined) {
      doc = ordinal.size;
      ordinal.set(row.chunkId, doc);
      lengths.push(0);
    }
    let list = lists.get(row.lexeme);
    if (!list) {
      list = { docs: [], tfs: [] };
      lists.set(row.lexeme, list);
    }
    list.docs.push(doc);
    list.tfs.push(row.tf);
    lengths[doc] = (lengths[doc] ?? 0) + row.tf;
  }
  const chunkIds = [...ordinal.keys()];
  const docLen = Float64Array.from(lengths);
  const postings = new Map<string, { docs: Int32Array; tfs: Uint16Array }>();
  let bytes = chunkIds.length * (8 + 40);
  for (const [lexeme, list] of lists) {
    postings.set(lexeme, { docs: Int32Array.from(list.docs), tfs: Uint16Array.from(list.tfs) });
    bytes += list.docs.length * 6 + lexeme.length + 32;
  }
  const scores = new Float64Array(chunkIds.length);
  const touched = new Int32Array(chunkIds.length);

  const search = (
    terms: readonly WeightedTerm[],
    norm: LengthNormalisation,
    k: number,
    allowed?: AllowedChunks,
  ): ScoredChunk[] => {
    let count = 0;
    for (const term of terms) {
      const list = postings.get(term.term);
      if (!list) continue;
      const { docs, tfs } = list;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i] as number;
        if (allowed && (((allowed[doc >>> 5] as number) >>> (doc & 31)) & 1) === 0) continue;
        if (scores[doc] === 0) touched[count++] = doc;
        scores[doc] =
          (scores[doc] as number) + term.weight * tfPart(tfs[i] as number, docLen[doc] as number, norm);
      }
    }
    return bestK(count, k);
  };

  /** The best k of the touched chunks, score descending then chunk id ascending; resets the scores. */
  const bestK = (count: number, k: number): ScoredChunk[] => {
    const idOf = (doc: number) => chunkIds[doc] ?? "";
    const before = (a: { doc: number; score: number }, b: { doc: number; score: number }) =>
      a.score > b.score || (a.score === b.score && idOf(a.doc) < idOf(b.doc));
    const best: { doc: number; score: number }[] = [];
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      const entry = { doc, score: scores[doc] as number };
      scores[doc] = 0;
      const last = best[best.length - 1];
      if (best.length >= k && last && !before(entry, last)) continue;
      let at = best.length;
      while (at > 0 && before(entry, best[at - 1] as { doc: number; score: number })) at--;
      best.splice(at, 0, entry);
      if (best.length > k) best.pop();
    }
    return best.map((b) => ({ chunkId: idOf(b.doc), score: b.score }));
  };

  return {
    chunkIds,
    bytes,
    search,
    allow(ids) {
      const bits = new Uint32Array(Math.ceil(chunkIds.length / 32));
      for (const id of ids) {
        const doc = ordinal.get(id);
        if (doc !== undefined) bits[doc >>> 5] = (bits[doc >>> 5] as number) | (1 << (doc & 31));
      }
      return bits;
    },
  };
}

/**
 * Builds a tenant's index from the source of truth: the current chunks' tsvectors, streamed in pages
 * (the migration's tf rule: positions, at least 1, at most 32,767).
 */
export async function loadCompactBm25Index(tx: TransactionSql, tenantId: string): Promise<CompactBm25Index> {
  const rows: LexemeRow[] = [];
  await tx<{ chunk_id: string; lexeme: string; tf: number }[]>`
    select c.id as chunk_id, u.lexeme, least(coalesce(cardinality(u.positions), 1), 32767)::int as tf
    from chunks c cross join lateral unnest(c.tsv) u
    where c.tenant_id = ${tenantId} and c.valid_to is null`.cursor(10_000, (page) => {
    for (const r of page) rows.push({ chunkId: r.chunk_id, lexeme: r.lexeme, tf: r.tf });
  });
  return buildCompactBm25Index(rows);
}
