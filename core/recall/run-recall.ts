import { capSessionTurns } from "./cap-session-turns.js";
import { type ResolvedRecallFilter, resolveRecallFilter } from "./filter/resolve-recall-filter.js";
import { runFirstStage } from "./first-stage.js";
import type { Candidate } from "./recall-candidate.js";
import { DEFAULT_RECALL_TUNING, type RecallDeps } from "./recall-deps.js";
import type { RecallOptions } from "./recall-options.js";
import { type RecalledMemory, toRecalledMemories } from "./recalled-memories.js";
import { rerankCandidates } from "./rerank/rerank-candidates.js";
import { createStageTimer, type StageTiming } from "./stage-timer.js";
import { findLatestWords, latestInterval, latestWindow } from "./time/latest-intent.js";
import { parseQueryTime } from "./time/parse-query-time.js";
import { applyTimeBoost, applyTimeOnly } from "./time/time-boost.js";
import { isTimeOnlyQuestion } from "./time/time-only-question.js";
import { startVectorChannel } from "./vector-channel.js";

export type { RecallExplanation } from "./explain/explain-hit.js";
export type { HitSource } from "./recall-candidate.js";
export { DEFAULT_RECALL_TUNING, type RecallDeps, type RecallTuning } from "./recall-deps.js";
export type { RecalledMemory } from "./recalled-memories.js";

export interface RecallOutcome {
  readonly hits: RecalledMemory[];
  readonly latencyMs: number;
  /** Id of the reranker that ordered the hits; "none" when none ran. */
  readonly reranker: string;
  readonly timings: StageTiming[];
}

/**
 * Hybrid recall (DESIGN "Recall"): BM25 and vector search in parallel, fused per memory with RRF,
 * expanded over the graph from the best seeds, re-ranked, trimmed to k. Everything PostgreSQL reads
 * comes from one snapshot; the vector channel runs beside it. The stages: the query's time, the
 * filter, the vector channel, the first stage in the snapshot, the time boost, rerank, the hits.
 */
export async function runRecall(
  deps: RecallDeps,
  tenantId: string,
  options: RecallOptions,
): Promise<RecallOutcome> {
  const started = performance.now();
  const tuning = { ...DEFAULT_RECALL_TUNING, ...deps.tuning };
  const timer = createStageTimer();
  const { asOf, stages, query } = options;
  // A time expression ("gestern", "last week", "im März 2026") becomes a soft condition on valid time,
  // relative to as_of or the request time (ADR 0491). The channels keep the whole query: in questions
  // about content ("Who won in 2015?", Tatoeba's "heute") the expression's words are evidence, and
  // removing them cost BM25 there. A query without one (nor a latest word, below) runs as before.
  const reference = asOf ?? deps.now?.() ?? new Date();
  const queryTime = parseQueryTime(query, reference, deps.timeZone);
  // A question after the latest word on something, naming no time ("Was ist der aktuelle Stand zum
  // Release?"): the newest memories on its subject first (ADR 0740).
  const latest = queryTime === undefined ? findLatestWords(query) : undefined;

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
  const vectors = startVectorChannel(
    deps,
    tenantId,
    options,
    tuning.channelDepth,
    timer,
    resolving,
    tuning.timeChannel ? (latest !== undefined ? latestWindow(reference) : queryTime) : undefined,
  );
  const first = await runFirstStage({ deps, tenantId, options, tuning, timer }, resolving, vectors);
  const { candidates } = first;

  // A question that names nothing but a time ("what did we talk about yesterday?") states one
  // condition: the time orders first, content only within it; and the reranker, which judges how
  // well a memory matches the question's words, has none to judge it by (ADR 0610).
  const timeOnly = queryTime !== undefined && isTimeOnlyQuestion(query, queryTime);
  const newest = latest === undefined ? undefined : latestInterval(candidates, reference);
  let ordered: Candidate[] =
    queryTime === undefined
      ? newest === undefined
        ? candidates
        : applyTimeBoost(candidates, newest, tuning.timeBoost)
      : timeOnly
        ? applyTimeOnly(candidates, queryTime)
        : applyTimeBoost(candidates, queryTime, tuning.timeBoost);
  let rerankerId = "none";
  if (stages.rerank && deps.reranker !== undefined && candidates.length > 1 && !timeOnly) {
    ({ ordered, rerankerId } = await rerankCandidates(ordered, {
      reranker: deps.reranker,
      query,
      k: options.k,
      explain: options.explain === true,
      share: first.share,
      tuning,
      timer,
      strictProviders: deps.strictProviders,
      logger: deps.logger,
      tenantId,
      workspaceChunks: first.fulltext.chunkCount,
      wordDocumentFrequency: first.fulltext.wordDocumentFrequency,
    }));
  }

  const hits = toRecalledMemories(
    capSessionTurns(ordered, tuning.turnsPerSession),
    options.k,
    options.explain,
    first,
    // explain shows the interval a latest word stood for, as it shows a time expression's.
    queryTime ?? (latest === undefined || newest === undefined ? undefined : { ...latest, ...newest }),
  );
  const latencyMs = performance.now() - started;
  timer.record("total", latencyMs);
  return { hits, latencyMs, reranker: rerankerId, timings: timer.timings() };
}
