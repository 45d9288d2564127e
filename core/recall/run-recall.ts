import type { Logger } from "../../config/logger.js";
import { BUILTIN_RERANKER_ID } from "../models/builtin/create-builtin-reranker.js";
import { cachedGermanStem } from "../models/builtin/stem-like-index.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { Lexicon } from "../models/lexicon/lexicon.js";
import { ProviderError } from "../models/provider-error.js";
import type { Reranker } from "../models/reranker.js";
import type { Thesaurus } from "../models/thesaurus/thesaurus.js";
import type { Database, TransactionSql } from "../store/database.js";
import { withTenantSnapshot } from "../store/with-tenant-snapshot.js";
import type { VectorHit, VectorStore } from "../vectors/vector-store.js";
import type { Bm25IndexCache } from "./bm25/bm25-index-cache.js";
import { explainHit, type RecallExplanation } from "./explain/explain-hit.js";
import { graphPaths } from "./explain/graph-paths.js";
import { type ResolvedRecallFilter, resolveRecallFilter } from "./filter/resolve-recall-filter.js";
import {
  channelShareWeights,
  fulltextShare,
  fuseCalibratedScores,
  vectorMargin,
} from "./fuse/fuse-calibrated-scores.js";
import { type FusedMemory, fuseReciprocalRank } from "./fuse/fuse-reciprocal-rank.js";
import { expandNeighbours } from "./graph/expand-neighbours.js";
import { spreadGraphScores } from "./graph/spread-graph-scores.js";
import { type CandidateChunk, readCandidateChunks, readFirstChunks } from "./read-candidate-chunks.js";
import type { RecallOptions } from "./recall-options.js";
import { addRerankScores } from "./rerank/add-rerank-scores.js";
import { blendReranked } from "./rerank/blend-reranked.js";
import { Bm25IndexAhead, type FulltextResult, searchFulltext } from "./search-fulltext.js";
import { searchVectors } from "./search-vectors.js";
import { trimSnippet } from "./snippet/trim-snippet.js";
import { createStageTimer, type StageTiming } from "./stage-timer.js";
import { parseQueryTime } from "./time/parse-query-time.js";
import { applyTimeBoost } from "./time/time-boost.js";

export interface RecallDeps {
  readonly db: Database;
  readonly vectors: Pick<VectorStore, "search">;
  readonly embedder: EmbeddingProvider;
  readonly reranker: Reranker | undefined;
  /** FreeDict lexicon for cross-lingual query expansion; without it BM25 searches the query's words only. */
  readonly lexicon: Lexicon | undefined;
  /** Thesauri for synonym expansion of BM25 queries (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly logger: Logger;
  readonly tuning?: Partial<RecallTuning>;
  /** Derived in-process BM25 indexes (ADR 0230); unset: BM25 from the SQL scorer (ADR 0250). */
  readonly bm25Index?: Bm25IndexCache | undefined;
  /**
   * The workspace chose its own provider (BYOK): a provider failure answers 502 / -32000 naming the
   * provider instead of degrading silently, so a revoked or exhausted key shows.
   */
  readonly strictProviders?: boolean;
  /** The request time relative time expressions refer to when no `asOf` is given (tests fix it). */
  readonly now?: () => Date;
  /** Where filters switch from listed memory ids to over-fetching (bench:recall measures it). */
  readonly filterTuning?: { readonly listedMax?: number; readonly lookupMax?: number };
}

/** Depths and weights of the pipeline; measured with `npm run eval` (docs/recall.md). */
export interface RecallTuning {
  /** Chunks each first-stage channel returns. */
  readonly channelDepth: number;
  /** Fused memories whose graph neighbours are expanded. */
  readonly graphSeeds: number;
  /** Candidates handed to the reranker (at least k). */
  readonly rerankDepth: number;
  /** Say of the first-stage (fused) rank in the final order of reranked candidates; 0: reranker alone. */
  readonly firstStageWeight: number;
  /** Weight of the built-in reranker's score added to calibrated fused scores (any channel share). */
  readonly rerankScoreWeight: number;
  readonly fulltextWeight: number;
  readonly vectorWeight: number;
  /** Share of a memory's score that depends on its valid time matching the query's time expression. */
  readonly timeBoost: number;
}

export const DEFAULT_RECALL_TUNING: RecallTuning = {
  channelDepth: 50,
  graphSeeds: 5,
  rerankDepth: 20,
  firstStageWeight: 1,
  rerankScoreWeight: 0.15,
  fulltextWeight: 1,
  vectorWeight: 1,
  timeBoost: 0.5,
};

/** Spec RecallHit.source: which channel surfaced the hit. */
export type HitSource = "fulltext" | "vector" | "hybrid" | "graph";

export type { RecallExplanation } from "./explain/explain-hit.js";

export interface RecalledMemory {
  readonly memoryId: string;
  readonly title: string;
  readonly content: string;
  readonly snippet: string;
  readonly score: number;
  readonly source: HitSource;
  readonly hops: number;
  readonly validFrom: Date;
  readonly validTo: Date | null;
  readonly memoryType: string;
  readonly kind: string;
  readonly origin: string;
  /** A PDF upload's pages the hit's chunk spans. */
  readonly page?: number;
  readonly pageEnd?: number;
  /** Only when the recall asked to explain. */
  readonly explanation?: RecallExplanation;
}

export interface RecallOutcome {
  readonly hits: RecalledMemory[];
  readonly latencyMs: number;
  /** Id of the reranker that ordered the hits; "none" when none ran. */
  readonly reranker: string;
  readonly timings: StageTiming[];
}

interface Candidate {
  readonly chunk: CandidateChunk;
  readonly score: number;
  readonly source: HitSource;
  readonly hops: number;
  /** Channel ranks (direct hits); the fused score stays here when rerank changes `score`. */
  readonly ranks?: FusedMemory["ranks"];
  readonly fusedScore?: number;
  readonly rerankScore?: number;
  /** Graph hits, explain only: relation types from the seed and the seed. */
  readonly graphPath?: readonly string[];
  readonly graphSeedId?: string;
  /** With a time expression in the query: how well the memory's valid time matches it (0..1). */
  readonly timeMatch?: number;
}

const sourceOf = (f: FusedMemory): HitSource =>
  f.ranks.fulltext !== undefined && f.ranks.vector !== undefined
    ? "hybrid"
    : f.ranks.fulltext !== undefined
      ? "fulltext"
      : "vector";

/**
 * Hybrid recall (DESIGN "Recall"): BM25 and vector search in parallel, fused per memory with RRF,
 * expanded over the graph from the best seeds, re-ranked, trimmed to k. Everything PostgreSQL reads
 * comes from one snapshot; the vector channel runs beside it.
 */
export async function runRecall(
  deps: RecallDeps,
  tenantId: string,
  options: RecallOptions,
): Promise<RecallOutcome> {
  const started = performance.now();
  const tuning = { ...DEFAULT_RECALL_TUNING, ...deps.tuning };
  const timer = createStageTimer();
  const { asOf, stages } = options;
  const { query } = options;
  // A time expression ("gestern", "last week", "im März 2026") becomes a soft condition on valid time,
  // relative to as_of or the request time (ADR 0491). The channels keep the whole query: in questions
  // about content ("Who won in 2015?", Tatoeba's "heute") the expression's words are evidence, and
  // removing them cost BM25 there. A query without one runs exactly as before.
  const queryTime = parseQueryTime(query, asOf ?? deps.now?.() ?? new Date());

  // The filter is resolved once, before the channels use it, so each applies it before its own top
  // k; the query is embedded meanwhile.
  const resolving: Promise<ResolvedRecallFilter> | undefined =
    options.filter === undefined
      ? undefined
      : timer.time("filter", () =>
          deps.db.withTenant(tenantId, (tx) =>
            resolveRecallFilter(tx, tenantId, options.filter ?? {}, { asOf, ...deps.filterTuning }),
          ),
        );

  let providerFailure: ProviderError | undefined;
  const vectorSearch: Promise<VectorHit[]> = stages.vector
    ? timer
        .time("vector", () =>
          searchVectors(
            deps.vectors,
            deps.embedder,
            tenantId,
            query,
            tuning.channelDepth,
            asOf,
            resolving?.then((filter) => ({
              resolved: filter,
              keepMemories: (ids: readonly string[]) =>
                deps.db.withTenant(tenantId, (tx) => filter.keepMemories(tx, ids)),
            })),
          ),
        )
        .catch((error: unknown) => {
          if (deps.strictProviders && error instanceof ProviderError) providerFailure = error;
          // A failing embedder must not take recall down: BM25 still answers.
          deps.logger.warn({ err: error, tenantId }, "vector channel failed; recall continues without it");
          return [];
        })
    : Promise.resolve([]);

  // The channels, hydrate and graph in one snapshot. Tried once more in a new snapshot when the shared
  // BM25 index has moved past the first one (a write committed meanwhile): the new snapshot sees that
  // write, so the index answers, where the SQL scorer would scan the tenant's tsvectors.
  const inSnapshot = (retryWhenIndexAhead: boolean) =>
    withTenantSnapshot(deps.db, tenantId, async (tx) => {
      const filter = await resolving;
      const fulltext: FulltextResult = stages.fulltext
        ? await timer.time("fulltext", () =>
            searchFulltext(tx, tenantId, {
              query,
              depth: tuning.channelDepth,
              asOf,
              lexicon: deps.lexicon,
              thesaurus: deps.thesaurus,
              filter,
              index: deps.bm25Index,
              retryWhenIndexAhead,
            }),
          )
        : { hits: [], terms: [], path: "off", maxScore: 0, coverage: 0, chunkCount: 0 };
      const vectorHits = await vectorSearch;
      if (providerFailure) throw providerFailure;
      const chunks = await timer.time("hydrate", () =>
        readCandidateChunks(
          tx,
          tenantId,
          [...new Set([...fulltext.hits.map((h) => h.chunkId), ...vectorHits.map((h) => h.chunkId)])],
          asOf,
          filter,
        ),
      );
      const known = (chunkId: string) => {
        const chunk = chunks.get(chunkId);
        return chunk === undefined ? [] : [{ memoryId: chunk.memoryId, chunkId }];
      };
      const fulltextHits = fulltext.hits.flatMap((h) =>
        known(h.chunkId).map((k) => ({ ...k, score: h.score })),
      );
      const vectorHitsKnown = vectorHits.filter((h) => chunks.has(h.chunkId));
      const share = fusionShare(stages, deps.embedder.id, fulltext, vectorHitsKnown);
      const fused =
        share === undefined
          ? fuseReciprocalRank([
              { name: "fulltext", weight: tuning.fulltextWeight, hits: fulltextHits },
              { name: "vector", weight: tuning.vectorWeight, hits: vectorHitsKnown },
            ])
          : fuseCalibratedScores(fulltextHits, fulltext.maxScore, vectorHitsKnown, share);
      const candidates: Candidate[] = fused.flatMap((f) => {
        const chunk = chunks.get(f.chunkId);
        return chunk === undefined
          ? []
          : [{ chunk, score: f.score, source: sourceOf(f), hops: 0, ranks: f.ranks, fusedScore: f.score }];
      });
      if (stages.graph && options.hops > 0 && candidates.length > 0) {
        const reached = await timer.time("graph", () =>
          expandGraph(tx, tenantId, candidates, options, tuning.graphSeeds, filter),
        );
        candidates.push(...reached);
        candidates.sort((a, b) => b.score - a.score || a.hops - b.hops);
      }
      return { candidates, fulltext, share, fulltextHits, vectorHitsKnown };
    });
  const { candidates, fulltext, share, fulltextHits, vectorHitsKnown } = await inSnapshot(true).catch(
    (error: unknown) => {
      if (error instanceof Bm25IndexAhead) return inSnapshot(false);
      throw error;
    },
  );

  let ordered: Candidate[] =
    queryTime === undefined ? candidates : applyTimeBoost(candidates, queryTime, tuning.timeBoost);
  let rerankerId = "none";
  if (stages.rerank && deps.reranker !== undefined && candidates.length > 1) {
    const reranker = deps.reranker;
    const head = ordered.slice(0, Math.max(tuning.rerankDepth, options.k));
    const rest = ordered.slice(head.length);
    try {
      const scores = await timer.time("rerank", () =>
        reranker.rerank(
          query,
          head.map((c) => ({
            id: c.chunk.memoryId,
            title: c.chunk.title,
            text: c.chunk.content,
            memoryType: c.chunk.memoryType,
            createdAt: c.chunk.createdAt,
          })),
        ),
      );
      // With calibrated fusion the built-in reranker's score (the idf-weighted share of the query's
      // words and their dictionary translations in the candidate) is added to the fused score with a
      // fixed weight, like a third channel (rank blending cost tatoeba_en2de 0.014 and covidfaq_en
      // 0.007 nDCG@10). Not scaled by full text's share: that share is low exactly when query and
      // memories differ in language, where BM25 is weak but the reranker, ranking only candidates
      // the channels already found, still separates them (docs/recall.md "Rerank"). 0.15 is about
      // what the share-scaled rule gave monolingual queries (0.2 · α, α ≈ 0.7). Other rerankers'
      // scores have their own scales: their order is blended by rank.
      const blended =
        share !== undefined && reranker.id === BUILTIN_RERANKER_ID
          ? addRerankScores(head, scores, tuning.rerankScoreWeight)
          : blendReranked(head, scores, tuning.firstStageWeight);
      // Explanations keep the reranker's own score of each hit; without explain nothing is added.
      const rerankOf = options.explain
        ? new Map(head.map((c, i) => [c.chunk.memoryId, scores[i] ?? 0]))
        : undefined;
      ordered = [
        ...(rerankOf === undefined
          ? blended
          : blended.map((c) => ({ ...c, rerankScore: rerankOf.get(c.chunk.memoryId) ?? 0 }))),
        ...rest,
      ];
      rerankerId = reranker.id;
    } catch (error) {
      if (deps.strictProviders && error instanceof ProviderError) throw error;
      // Without a reranker answer the fused order stands, and the response says no reranker ran.
      deps.logger.warn(
        { err: error, tenantId, reranker: reranker.id },
        "reranker failed; keeping the fused order",
      );
    }
  }

  const lexemes = new Set(fulltext.terms.map((t) => t.term));
  const stem = cachedGermanStem;
  const hits = ordered.slice(0, options.k).map(
    (c): RecalledMemory => ({
      memoryId: c.chunk.memoryId,
      title: c.chunk.title,
      content: c.chunk.content,
      snippet: trimSnippet(c.chunk.content, { terms: lexemes, stem }),
      score: c.score,
      source: c.source,
      hops: c.hops,
      validFrom: c.chunk.validFrom,
      validTo: c.chunk.validTo,
      memoryType: c.chunk.memoryType,
      kind: c.chunk.kind,
      origin: c.chunk.origin,
      ...(c.chunk.page === undefined ? {} : { page: c.chunk.page }),
      ...(c.chunk.pageEnd === undefined ? {} : { pageEnd: c.chunk.pageEnd }),
      ...(options.explain
        ? { explanation: explainHit(c, share, fulltextHits, vectorHitsKnown, lexemes, queryTime) }
        : {}),
    }),
  );
  const latencyMs = performance.now() - started;
  timer.record("total", latencyMs);
  return { hits, latencyMs, reranker: rerankerId, timings: timer.timings() };
}

/**
 * Full text's share of the fusion for this query, or undefined for rank fusion (an embedder whose
 * distances were not calibrated). One channel off: that channel alone.
 */
function fusionShare(
  stages: RecallOptions["stages"],
  embedderId: string,
  fulltext: Pick<FulltextResult, "coverage" | "chunkCount">,
  vectorHits: readonly VectorHit[],
): number | undefined {
  if (!stages.vector) return 1;
  if (!stages.fulltext) return 0;
  const weights = channelShareWeights(embedderId);
  if (weights === undefined) return undefined;
  return fulltextShare(weights, {
    coverage: fulltext.coverage,
    vectorMargin: vectorMargin(vectorHits),
    chunkCount: fulltext.chunkCount,
  });
}

/** Neighbours of the best seeds enter with a decayed score; direct hits keep their own. */
async function expandGraph(
  tx: TransactionSql,
  tenantId: string,
  candidates: readonly Candidate[],
  options: RecallOptions,
  seedCount: number,
  filter: ResolvedRecallFilter | undefined,
): Promise<Candidate[]> {
  const seeds = candidates.slice(0, seedCount);
  const neighbours = await expandNeighbours(tx, {
    tenantId,
    seeds: seeds.map((c) => c.chunk.memoryId),
    hops: options.hops,
    ...(options.asOf !== undefined ? { asOf: options.asOf } : {}),
  });
  const direct = new Set(candidates.map((c) => c.chunk.memoryId));
  const spread = spreadGraphScores(new Map(seeds.map((c) => [c.chunk.memoryId, c.score])), neighbours).filter(
    (s) => !direct.has(s.memoryId),
  );
  if (spread.length === 0) return [];
  const chunks = await readFirstChunks(
    tx,
    tenantId,
    spread.map((s) => s.memoryId),
    filter,
  );
  const paths = options.explain ? graphPaths(neighbours) : undefined;
  return spread.flatMap((s): Candidate[] => {
    const chunk = chunks.get(s.memoryId);
    if (chunk === undefined) return [];
    const path = paths?.get(s.memoryId);
    return [
      {
        chunk,
        score: s.score,
        source: "graph",
        hops: s.hops,
        ...(path !== undefined ? { graphPath: path.relTypes, graphSeedId: path.seedId } : {}),
      },
    ];
  });
}
