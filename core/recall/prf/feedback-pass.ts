import type { TransactionSql } from "../../store/database.js";
import { MAX_TF_PART } from "../bm25/bm25-parameters.js";
import type { Bm25Term } from "../bm25/plan-bm25-terms.js";
import type { ScoredChunk } from "../bm25/scored-chunk.js";
import type { FulltextResult } from "../search-fulltext.js";
import { type FeedbackTermSettings, feedbackTerms } from "./feedback-terms.js";
import { readFeedbackChunks } from "./read-feedback-chunks.js";

/** Pseudo-relevance feedback (ADR 0570): off by default; the measured figures are in the ADR. */
export interface PrfSettings extends FeedbackTermSettings {
  readonly enabled: boolean;
  /** Feedback chunks: the first pass's best. */
  readonly chunks: number;
  /** Which first-pass order gives the feedback chunks: the fused one, or BM25's own. */
  readonly from: "fused" | "fulltext";
  /**
   * Fusion's best possible BM25 score after the second pass: the query's own (expansion terms only
   * add) or including the expansion terms' mass.
   */
  readonly calibrate: "query" | "expanded";
  /**
   * Scale `weight` by how much of the query's idf mass the first pass's best chunk misses, 1 − best
   * BM25 / maxScore: feedback where the words did not meet, little where the best chunk holds them all
   * (adaptive feedback, Lv & Zhai, CIKM 2009).
   */
  readonly adaptive: boolean;
  /** Rocchio weight of the feedback chunks' centroid on the query vector (0: the vector channel's first pass stands). */
  readonly vectorWeight: number;
}

export const DEFAULT_PRF: PrfSettings = {
  enabled: false,
  chunks: 5,
  terms: 10,
  weight: 0.1,
  minChunks: 2,
  maxDfShare: 1,
  from: "fused",
  calibrate: "query",
  vectorWeight: 0,
  adaptive: false,
};

/** The second full-text pass: its hits replace the first's in fusion. */
export interface FeedbackPass {
  readonly hits: ScoredChunk[];
  readonly maxScore: number;
  readonly expansion: readonly Bm25Term[];
}

/**
 * Expands the query with terms of the first pass's best chunks (feedback-terms.ts) and scores the
 * expanded query over the same chunks the first pass could see (same snapshot, filter, `as_of`).
 * Undefined when nothing was added: the first pass stands.
 */
export async function runFeedbackPass(
  tx: TransactionSql,
  tenantId: string,
  feedback: readonly { readonly chunkId: string; readonly score: number }[],
  fulltext: FulltextResult,
  settings: PrfSettings,
): Promise<FeedbackPass | undefined> {
  const top = feedback.slice(0, settings.chunks);
  if (fulltext.searchTerms === undefined || top.length === 0 || fulltext.terms.length === 0) return undefined;
  const read = await readFeedbackChunks(
    tx,
    tenantId,
    top.map((f) => f.chunkId),
    settings.minChunks,
  );
  const best = fulltext.hits[0]?.score ?? 0;
  const mismatch = fulltext.maxScore > 0 ? 1 - Math.min(1, best / fulltext.maxScore) : 1;
  const weight = settings.adaptive ? settings.weight * mismatch : settings.weight;
  const expansion = feedbackTerms(
    top.map((f) => ({ weight: f.score, lexemes: read.chunks.get(f.chunkId) ?? [] })),
    read.df,
    fulltext.chunkCount,
    new Set(fulltext.terms.map((t) => t.term)),
    { ...settings, weight },
  );
  if (expansion.length === 0) return undefined;
  const terms = [...fulltext.terms, ...expansion].sort(
    (a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1),
  );
  const hits = await fulltext.searchTerms(terms);
  const added = expansion.reduce((sum, t) => sum + t.weight * MAX_TF_PART, 0);
  const maxScore = settings.calibrate === "expanded" ? fulltext.maxScore + added : fulltext.maxScore;
  return { hits, maxScore, expansion };
}
