import type { Logger } from "../../config/logger.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { Lexicon } from "../models/lexicon/lexicon.js";
import type { Reranker } from "../models/reranker.js";
import type { Thesaurus } from "../models/thesaurus/thesaurus.js";
import type { Database } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";
import type { Bm25IndexCache } from "./bm25/bm25-index-cache.js";
import { DEFAULT_PRF, type PrfSettings } from "./prf/feedback-pass.js";

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
  /** IANA zone whose days, weeks and months time expressions name (RECALL_TIME_ZONE, ADR 0620); default UTC. */
  readonly timeZone?: string;
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
  /**
   * Weight of the built-in reranker's best-sentence cosine, times the vector channel's share, added to
   * calibrated fused scores (ADR 0630); 0: not computed.
   */
  readonly bestSentenceWeight: number;
  /**
   * Weight of the English sentence encoder's best-sentence cosine (Reranker.scoreSentencesSemantically,
   * ADR 0760) added to calibrated fused scores; 0: not computed.
   */
  readonly semanticSentenceWeight: number;
  readonly fulltextWeight: number;
  readonly vectorWeight: number;
  /** Share of a memory's score that depends on its valid time matching the query's time expression. */
  readonly timeBoost: number;
  /** With a time expression, also search the query vector among the chunks valid in its interval (ADR 0610). */
  readonly timeChannel: boolean;
  /** Hits one conversation session may fill with its turns (ADR 0530); Infinity: no cap. */
  readonly turnsPerSession: number;
  /** Pseudo-relevance feedback: a second full-text pass with terms of the first pass's best (ADR 0570). */
  readonly prf: PrfSettings;
}

export const DEFAULT_RECALL_TUNING: RecallTuning = {
  channelDepth: 50,
  graphSeeds: 5,
  rerankDepth: 20,
  firstStageWeight: 1,
  rerankScoreWeight: 0.15,
  bestSentenceWeight: 0.8,
  semanticSentenceWeight: 0.4,
  fulltextWeight: 1,
  vectorWeight: 1,
  timeBoost: 0.7,
  timeChannel: true,
  // No cap: every cap measured lowered the conversation evaluation (ADR 0530).
  turnsPerSession: Number.POSITIVE_INFINITY,
  prf: DEFAULT_PRF,
};
