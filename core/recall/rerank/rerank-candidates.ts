import type { Logger } from "../../../config/logger.js";
import { BUILTIN_RERANKER_ID } from "../../models/builtin/create-builtin-reranker.js";
import { ProviderError } from "../../models/provider-error.js";
import type { Reranker } from "../../models/reranker.js";
import type { Candidate } from "../recall-candidate.js";
import type { RecallTuning } from "../recall-deps.js";
import type { StageTimer } from "../stage-timer.js";
import { addRerankScores } from "./add-rerank-scores.js";
import { blendReranked } from "./blend-reranked.js";

export interface RerankStage {
  readonly reranker: Reranker;
  readonly query: string;
  readonly k: number;
  readonly explain: boolean;
  /** Full text's share of the fusion, or undefined for rank fusion. */
  readonly share: number | undefined;
  readonly tuning: RecallTuning;
  readonly timer: StageTimer;
  /** The workspace's own provider (BYOK): its failure fails the recall. */
  readonly strictProviders: boolean | undefined;
  readonly logger: Logger;
  readonly tenantId: string;
  /** The workspace's current chunks (the built-in reranker's `repeat` grows with it, ADR 0550). */
  readonly workspaceChunks: number;
  /** How many of its chunks hold each query word (the built-in reranker's word weights, ADR 0640). */
  readonly wordDocumentFrequency?: ReadonlyMap<string, number> | undefined;
}

/**
 * The head of the order re-ranked and blended with the first stage; the rest follows as it was.
 * `rerankerId` is "none" when the reranker failed and the fused order stands.
 */
export async function rerankCandidates(
  ordered: Candidate[],
  stage: RerankStage,
): Promise<{ ordered: Candidate[]; rerankerId: string }> {
  const { reranker, tuning, share } = stage;
  const head = ordered.slice(0, Math.max(tuning.rerankDepth, stage.k));
  const rest = ordered.slice(head.length);
  // The built-in reranker's scores are added to calibrated fused scores (below); others are blended.
  const scoresAdded = share !== undefined && reranker.id === BUILTIN_RERANKER_ID;
  try {
    const candidates = head.map((c) => ({
      id: c.chunk.memoryId,
      title: c.chunk.title,
      text: c.chunk.content,
      memoryType: c.chunk.memoryType,
      validFrom: c.chunk.validFrom,
    }));
    const [scores, sentenceScores, semanticScores] = await stage.timer.time("rerank", () =>
      Promise.all([
        reranker.rerank(stage.query, candidates, {
          workspaceChunks: stage.workspaceChunks,
          wordDocumentFrequency: stage.wordDocumentFrequency,
        }),
        scoresAdded && tuning.bestSentenceWeight > 0
          ? reranker.scoreBestSentences?.(stage.query, candidates)
          : undefined,
        scoresAdded && tuning.semanticSentenceWeight > 0
          ? reranker
              .scoreSentencesSemantically?.(stage.query, candidates, { tenantId: stage.tenantId })
              // The encoder is an extra: its failure leaves the lexical rerank standing.
              .catch((error: unknown) => {
                stage.logger.warn(
                  { err: error, tenantId: stage.tenantId },
                  "semantic sentence scores failed",
                );
                return undefined;
              })
          : undefined,
      ]),
    );
    // With calibrated fusion the built-in reranker's score (the idf-weighted share of the query's
    // words and their dictionary translations in the candidate) is added to the fused score with a
    // fixed weight, like a third channel (rank blending cost tatoeba_en2de 0.014 and covidfaq_en
    // 0.007 nDCG@10). Not scaled by full text's share: that share is low exactly when query and
    // memories differ in language, where BM25 is weak but the reranker, ranking only candidates
    // the channels already found, still separates them (docs/recall.md "Rerank"). 0.15 is about
    // what the share-scaled rule gave monolingual queries (0.2 · α, α ≈ 0.7). Other rerankers'
    // scores have their own scales: their order is blended by rank.
    // The best sentence's cosine refines the fused vector term — a passage's vector averages all it
    // says, a question is answered by one sentence — so its weight follows that term's share (ADR 0630).
    const blended =
      share !== undefined && scoresAdded
        ? addRerankScores(
            head,
            scores,
            tuning.rerankScoreWeight,
            sentenceScores === undefined
              ? undefined
              : { scores: sentenceScores, weight: tuning.bestSentenceWeight * (1 - share) },
            semanticScores === undefined
              ? undefined
              : { scores: semanticScores, weight: tuning.semanticSentenceWeight },
          )
        : blendReranked(head, scores, tuning.firstStageWeight);
    // Explanations keep the reranker's own score of each hit; without explain nothing is added.
    const rerankOf = stage.explain
      ? new Map(head.map((c, i) => [c.chunk.chunkId, scores[i] ?? 0]))
      : undefined;
    return {
      ordered: [
        ...(rerankOf === undefined
          ? blended
          : blended.map((c) => ({ ...c, rerankScore: rerankOf.get(c.chunk.chunkId) ?? 0 }))),
        ...rest,
      ],
      rerankerId: reranker.id,
    };
  } catch (error) {
    if (stage.strictProviders && error instanceof ProviderError) throw error;
    // Without a reranker answer the fused order stands, and the response says no reranker ran.
    stage.logger.warn(
      { err: error, tenantId: stage.tenantId, reranker: reranker.id },
      "reranker failed; keeping the fused order",
    );
    return { ordered, rerankerId: "none" };
  }
}
