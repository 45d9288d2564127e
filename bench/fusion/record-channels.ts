import { readCandidateChunks } from "../../core/recall/read-candidate-chunks.js";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { searchVectors } from "../../core/recall/search-vectors.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { ingestEvalDataset, toDocumentIds } from "../eval/ingest-eval-dataset.js";
import type { EvalDataset, EvalQuery } from "../eval/read-eval-dataset.js";
import type { EvalCore } from "../eval/start-eval-core.js";

/** One channel's hit at memory level (the memory's best chunk), with the evaluation document it is. */
export interface RecordedHit {
  readonly memoryId: string;
  readonly chunkId: string;
  readonly doc: string;
  /** BM25 score (full text) or cosine distance (vector). */
  readonly value: number;
}

/** Everything fusion and rerank see of one query, recorded once so variants are compared offline. */
export interface RecordedQuery {
  readonly id: string;
  readonly lang: string;
  readonly relevant: readonly string[];
  /** Σ term weight × (k1 + 1): the best BM25 score possible for this query. */
  readonly maxScore: number;
  /** Share of the query's own lexemes the tenant's chunks contain (SearchFulltext's coverage). */
  readonly coverage: number;
  /** The tenant's current chunks (fusion's size feature); absent in recordings before 2026-12-06. */
  readonly chunkCount?: number;
  readonly fulltext: readonly RecordedHit[];
  readonly vector: readonly RecordedHit[];
  /** The production reranker's score per memory, for every memory either channel found. */
  readonly rerank: Readonly<Record<string, number>>;
  /** The query's text and each candidate's length in words (issue 50: the reranker's length bias). */
  readonly text?: string;
  readonly words?: Readonly<Record<string, number>>;
}

export interface RecordedSet {
  readonly dataset: string;
  readonly embedder: string;
  readonly reranker: string;
  readonly queries: readonly RecordedQuery[];
}

const memoryLevel = <H extends { memoryId: string }>(hits: readonly H[]) => {
  const seen = new Set<string>();
  return hits.filter((h) => !seen.has(h.memoryId) && seen.add(h.memoryId));
};

/**
 * Ingests a set through the real ingest path and records, per query, the two channels exactly as
 * runRecall gets them (recordQuery), and the reranker's score of every candidate.
 */
export async function recordChannels(
  core: EvalCore,
  dataset: EvalDataset,
  queries: readonly EvalQuery[],
  depth = 50,
): Promise<RecordedSet> {
  const { tenants, docsOf } = await ingestEvalDataset(core, dataset);
  const recorded: RecordedQuery[] = [];
  for (const query of queries) {
    const tenant = tenants.get(query.group);
    if (tenant === undefined) continue;
    const doc = (memoryId: string) => toDocumentIds([memoryId], docsOf, query.relevant)[0] ?? memoryId;
    recorded.push(await recordQuery(core, tenant.tenantId, query, doc, depth));
  }
  return {
    dataset: dataset.name,
    embedder: core.models.embedder.id,
    reranker: core.models.reranker?.id ?? "none",
    queries: recorded,
  };
}

/**
 * One query's two channels exactly as runRecall gets them (searchFulltext in a tenant snapshot,
 * searchVectors, depth 50, hydrated), and the reranker's score of every candidate; `doc` names the
 * evaluation document a memory is.
 */
export async function recordQuery(
  core: EvalCore,
  tenantId: string,
  query: Pick<EvalQuery, "id" | "lang" | "relevant" | "text">,
  doc: (memoryId: string) => string,
  depth = 50,
): Promise<RecordedQuery> {
  const reranker = core.models.reranker;
  const vectorHits = await searchVectors(
    core.storage.vectors,
    core.models.embedder,
    tenantId,
    query.text,
    depth,
    undefined,
  );
  const { fulltext, chunks } = await withTenantSnapshot(core.storage.db, tenantId, async (tx) => {
    const fulltext = await searchFulltext(tx, tenantId, {
      query: query.text,
      depth,
      lexicon: core.lexicon,
      thesaurus: core.models.thesaurus,
    });
    const ids = [...new Set([...fulltext.hits.map((h) => h.chunkId), ...vectorHits.map((h) => h.chunkId)])];
    return { fulltext, chunks: await readCandidateChunks(tx, tenantId, ids, undefined) };
  });
  const ft = memoryLevel(
    fulltext.hits.flatMap((h) => {
      const c = chunks.get(h.chunkId);
      return c === undefined
        ? []
        : [{ memoryId: c.memoryId, chunkId: h.chunkId, doc: doc(c.memoryId), value: h.score }];
    }),
  );
  const vec = memoryLevel(
    vectorHits
      .filter((h) => chunks.has(h.chunkId))
      .map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, doc: doc(h.memoryId), value: h.distance })),
  );
  const candidates = memoryLevel([...ft, ...vec]).flatMap((h) => {
    const c = chunks.get(h.chunkId);
    return c === undefined ? [] : [c];
  });
  const scores =
    reranker === undefined
      ? []
      : await reranker.rerank(
          query.text,
          candidates.map((c) => ({
            id: c.memoryId,
            title: c.title,
            text: c.content,
            memoryType: c.memoryType,
            createdAt: c.createdAt,
          })),
          {
            workspaceChunks: fulltext.chunkCount,
            wordDocumentFrequency: fulltext.wordDocumentFrequency,
          },
        );
  return {
    id: query.id,
    lang: query.lang,
    relevant: [...query.relevant],
    maxScore: fulltext.maxScore,
    coverage: fulltext.coverage,
    chunkCount: fulltext.chunkCount,
    fulltext: ft,
    vector: vec,
    rerank: Object.fromEntries(candidates.map((c, i) => [c.memoryId, scores[i] ?? 0])),
    text: query.text,
    words: Object.fromEntries(candidates.map((c) => [c.memoryId, c.content.split(/\s+/u).length])),
  };
}
