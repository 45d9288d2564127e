import type { TransactionSql } from "../store/database.js";
import { withTenantSnapshot } from "../store/with-tenant-snapshot.js";
import type { VectorHit } from "../vectors/vector-store.js";
import { mergeTopK } from "./bm25/search-bm25-from-index.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";
import {
  channelShareWeights,
  fulltextShare,
  fuseCalibratedScores,
  vectorMargin,
} from "./fuse/fuse-calibrated-scores.js";
import { fuseReciprocalRank } from "./fuse/fuse-reciprocal-rank.js";
import { expandGraph } from "./graph/graph-candidates.js";
import { runFeedback } from "./prf/run-feedback.js";
import { type CandidateChunk, readCandidateChunks } from "./read-candidate-chunks.js";
import { type Candidate, sourceOf } from "./recall-candidate.js";
import type { RecallDeps, RecallTuning } from "./recall-deps.js";
import type { RecallOptions } from "./recall-options.js";
import { Bm25IndexAhead, type FulltextResult, searchFulltext } from "./search-fulltext.js";
import type { StageTimer } from "./stage-timer.js";
import type { VectorChannel } from "./vector-channel.js";

/** What the first stage found: the candidates in order, and what the explanations need of the channels. */
export interface FirstStage {
  readonly candidates: Candidate[];
  readonly fulltext: FulltextResult;
  /** Full text's share of the fusion, or undefined for rank fusion. */
  readonly share: number | undefined;
  readonly fulltextHits: { memoryId: string; chunkId: string; score: number }[];
  readonly vectorHitsKnown: VectorHit[];
  /** The lexemes pseudo-relevance feedback added to the full-text query (ADR 0570); unset: none. */
  readonly feedbackTerms?: readonly string[];
}

/** What one recall's stages share. */
interface StageContext {
  readonly deps: RecallDeps;
  readonly tenantId: string;
  readonly options: RecallOptions;
  readonly tuning: RecallTuning;
  readonly timer: StageTimer;
}

/**
 * The channels, hydrate, fusion and graph in one snapshot. Tried once more in a new snapshot when the
 * shared BM25 index has moved past the first one (a write committed meanwhile): the new snapshot sees
 * that write, so the index answers, where the SQL scorer would scan the tenant's tsvectors.
 */
export function runFirstStage(
  context: StageContext,
  resolving: Promise<ResolvedRecallFilter> | undefined,
  vectors: VectorChannel,
): Promise<FirstStage> {
  const inSnapshot = (retryWhenIndexAhead: boolean) =>
    withTenantSnapshot(context.deps.db, context.tenantId, (tx) =>
      firstStageIn(tx, context, resolving, vectors, retryWhenIndexAhead),
    );
  return inSnapshot(true).catch((error: unknown) => {
    if (error instanceof Bm25IndexAhead) return inSnapshot(false);
    throw error;
  });
}

async function firstStageIn(
  tx: TransactionSql,
  { deps, tenantId, options, tuning, timer }: StageContext,
  resolving: Promise<ResolvedRecallFilter> | undefined,
  vectors: VectorChannel,
  retryWhenIndexAhead: boolean,
): Promise<FirstStage> {
  const { query, asOf, stages } = options;
  const filter = await resolving;
  const found: FulltextResult = stages.fulltext
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
  const vectorHits = await vectors.hits;
  const providerFailure = vectors.providerFailure();
  if (providerFailure) throw providerFailure;
  const fulltext = await scoreTimeWindow(found, vectors.windowChunkIds(), timer);
  const chunks = await timer.time("hydrate", () =>
    readCandidateChunks(
      tx,
      tenantId,
      [...new Set([...fulltext.hits.map((h) => h.chunkId), ...vectorHits.map((h) => h.chunkId)])],
      asOf,
      filter,
    ),
  );
  let fused: Omit<FirstStage, "fulltext"> = fuseChannels(
    deps.embedder.id,
    options,
    tuning,
    fulltext,
    vectorHits,
    chunks,
  );
  const feedbackOn = tuning.prf.enabled && fused.candidates.length > 0;
  if (feedbackOn && (stages.fulltext || (stages.vector && tuning.prf.vectorWeight > 0))) {
    // Pseudo-relevance feedback (ADR 0570): the first pass's best chunks refine the query of each
    // channel, whose second pass's hits are fused in place of its first's.
    const feedback =
      tuning.prf.from === "fused" || !stages.fulltext
        ? fused.candidates.map((c) => ({ chunk: c.chunk, score: c.score }))
        : fulltext.hits.flatMap((h) => {
            const chunk = chunks.get(h.chunkId);
            return chunk === undefined ? [] : [{ chunk, score: h.score }];
          });
    const second = await timer.time("prf", () =>
      runFeedback(tx, { deps, tenantId, options, tuning }, feedback, fulltext, vectors, chunks, filter),
    );
    if (second !== undefined) {
      const refined =
        second.lexical === undefined
          ? fulltext
          : { ...fulltext, hits: second.lexical.hits, maxScore: second.lexical.maxScore };
      fused = {
        ...fuseChannels(
          deps.embedder.id,
          options,
          tuning,
          refined,
          second.vectorHits ?? vectorHits,
          second.chunks,
        ),
        ...(second.lexical === undefined
          ? {}
          : { feedbackTerms: second.lexical.expansion.map((t) => t.term) }),
      };
    }
  }
  const { candidates } = fused;
  if (stages.graph && options.hops > 0 && candidates.length > 0) {
    const reached = await timer.time("graph", () =>
      expandGraph(tx, tenantId, candidates, options, tuning.graphSeeds, filter),
    );
    candidates.push(...reached);
    candidates.sort((a, b) => b.score - a.score || a.hops - b.hops);
  }
  return { ...fused, fulltext };
}

/**
 * The time channel's chunks (ADR 0610) get their BM25 scores too: the vector search found them within
 * the query's interval, but BM25's top k may not hold them (in a workspace of months of conversation
 * the topic's turns of other days fill it), and fused without their full-text part they would lose to
 * those turns whatever the time boost does. Hits stay in BM25 order (score, then chunk id).
 */
async function scoreTimeWindow(
  fulltext: FulltextResult,
  windowChunkIds: readonly string[],
  timer: StageTimer,
): Promise<FulltextResult> {
  const known = new Set(fulltext.hits.map((h) => h.chunkId));
  const missing = windowChunkIds.filter((id) => !known.has(id));
  if (missing.length === 0 || fulltext.scoreChunks === undefined || fulltext.terms.length === 0)
    return fulltext;
  const { scoreChunks } = fulltext;
  const scored = await timer.time("time-window", () => scoreChunks(missing));
  if (scored.length === 0) return fulltext;
  return { ...fulltext, hits: mergeTopK(fulltext.hits, scored, fulltext.hits.length + scored.length) };
}

/**
 * Both channels' hits on chunks the snapshot holds, fused per memory — except a conversation turn,
 * which is fused on its own (ADR 0530): the fusions rank by the key they are given, the turn's chunk id
 * in place of its session's memory id, so several turns of one session can each be a candidate.
 */
function fuseChannels(
  embedderId: string,
  options: RecallOptions,
  tuning: RecallTuning,
  fulltext: FulltextResult,
  vectorHits: readonly VectorHit[],
  chunks: ReadonlyMap<string, CandidateChunk>,
): Omit<FirstStage, "fulltext"> {
  const known = (chunkId: string) => {
    const chunk = chunks.get(chunkId);
    return chunk === undefined ? [] : [{ memoryId: chunk.memoryId, chunkId }];
  };
  const fulltextHits = fulltext.hits.flatMap((h) => known(h.chunkId).map((k) => ({ ...k, score: h.score })));
  const vectorHitsKnown = vectorHits.filter((h) => chunks.has(h.chunkId));
  const ranked = <T extends { memoryId: string; chunkId: string }>(hits: readonly T[]): T[] =>
    hits.map((h) => (chunks.get(h.chunkId)?.turn ? { ...h, memoryId: h.chunkId } : h));
  const fulltextRanked = ranked(fulltextHits);
  const vectorRanked = ranked(vectorHitsKnown);
  const share = fusionShare(options.stages, embedderId, fulltext, vectorRanked);
  const fused =
    share === undefined
      ? fuseReciprocalRank([
          { name: "fulltext", weight: tuning.fulltextWeight, hits: fulltextRanked },
          { name: "vector", weight: tuning.vectorWeight, hits: vectorRanked },
        ])
      : fuseCalibratedScores(fulltextRanked, fulltext.maxScore, vectorRanked, share);
  const candidates: Candidate[] = fused.flatMap((f) => {
    const chunk = chunks.get(f.chunkId);
    return chunk === undefined
      ? []
      : [{ chunk, score: f.score, source: sourceOf(f), hops: 0, ranks: f.ranks, fusedScore: f.score }];
  });
  return { candidates, share, fulltextHits, vectorHitsKnown };
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
