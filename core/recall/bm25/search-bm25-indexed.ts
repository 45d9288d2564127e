import type { TransactionSql } from "../../store/database.js";
import { overfetchFactors } from "../filter/overfetch-factors.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import type { CollectionStatistics } from "../read-collection-statistics.js";
import type { Bm25IndexView } from "./bm25-index-view.js";
import { lengthNormalisation } from "./bm25-parameters.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import type { ScoredChunk } from "./scored-chunk.js";

const OVERFETCH_MAX = 1000;

/** How the in-process index answered (FulltextResult.path). */
export type IndexedBm25Path =
  | "index"
  | "index-filter-listed"
  | "index-filter-overfetch"
  | "index-filter-join";

/**
 * Exact BM25 top k from the tenant's in-process index (ADR 0230), filtered as the SQL design filters
 * (ADR 0220) — the same choice of listed / over-fetch / join, so the same
 * hits — but the listed and joined chunks become the index's allowed-chunk set, applied before the
 * top k. With `validAt`, only current chunks already valid then (the current part of a point-in-time
 * recall, search-bm25-from-index.ts): a current chunk valid at T belongs to its memory's current
 * version, which was the version valid at T, so the filter's conditions on `m` hold as of T too.
 * Undefined when the shared index moved past this recall's snapshot meanwhile: the caller then asks
 * SQL.
 */
export async function searchBm25Indexed(
  tx: TransactionSql,
  tenantId: string,
  view: Bm25IndexView,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
  filter: ResolvedRecallFilter | undefined,
  validAt?: Date,
): Promise<{ hits: ScoredChunk[]; path: IndexedBm25Path } | undefined> {
  if (terms.length === 0) return { hits: [], path: filter === undefined ? "index" : "index-filter-listed" };
  const norm = lengthNormalisation(collection);
  const answer = (hits: ScoredChunk[] | undefined, path: IndexedBm25Path) =>
    hits === undefined ? undefined : { hits, path };
  if (filter === undefined) return answer(view.search(terms, norm, k, { validAt }), "index");
  if (filter.memoryIds !== undefined && filter.memoryIds.length <= filter.lookupMax) {
    if (filter.memoryIds.length === 0) return { hits: [], path: "index-filter-listed" };
    const rows = await tx<{ id: string }[]>`
      select c.id from chunks c
      where c.tenant_id = ${tenantId} and c.valid_to is null
        and c.memory_id = any(${tx.array([...filter.memoryIds])}::uuid[])`;
    return answer(
      view.search(terms, norm, k, { allowedChunkIds: rows.map((r) => r.id), validAt }),
      "index-filter-listed",
    );
  }
  for (const factor of overfetchFactors(filter.share)) {
    const depth = k * factor;
    if (depth > OVERFETCH_MAX) break;
    const hits = view.search(terms, norm, depth, { validAt });
    if (hits === undefined) return undefined;
    const kept = await filter.keepChunks(
      tx,
      hits.map((h) => h.chunkId),
    );
    const matching = hits.filter((h) => kept.has(h.chunkId));
    if (matching.length >= k || hits.length < depth)
      return { hits: matching.slice(0, k), path: "index-filter-overfetch" };
  }
  const allowed = await tx<{ id: string }[]>`
    select c.id from memories m join chunks c on c.memory_id = m.id and c.tenant_id = m.tenant_id
    where m.tenant_id = ${tenantId} and m.valid_to is null and m.status <> 'failed' and c.valid_to is null
      and ${filter.sql(tx)}`;
  return answer(
    view.search(terms, norm, k, { allowedChunkIds: allowed.map((r) => r.id), validAt }),
    "index-filter-join",
  );
}
