import { cachedGermanStem } from "../../models/builtin/stem-like-index.js";
import type { VectorHit } from "../../vectors/vector-store.js";
import type { FusedMemory } from "../fuse/fuse-reciprocal-rank.js";
import type { QueryTime } from "../time/parse-query-time.js";
import { matchedTerms } from "./matched-terms.js";

/** Each stage's view of one hit (proto RecallExplanation). */
export interface RecallExplanation {
  readonly fulltextRank?: number;
  readonly fulltextScore?: number;
  readonly matchedTerms: readonly string[];
  readonly vectorRank?: number;
  readonly vectorDistance?: number;
  /** Full text's share of the fusion (calibrated fusion only). */
  readonly fulltextShare?: number;
  readonly fusedScore: number;
  readonly rerankScore?: number;
  readonly hops: number;
  /** Relation types from the seed to a hit reached over the graph, in walking order; empty otherwise. */
  readonly graphPath: readonly string[];
  /** The direct match a graph hit was reached from. */
  readonly graphSeedId?: string;
  /** The query's time expression and the interval of valid time it names (ADR 0491). */
  readonly queryTime?: { readonly text: string; readonly from: Date; readonly to: Date };
  /** How well the hit's valid time matches that interval (1 inside, decaying outside). */
  readonly timeMatch?: number;
}

/** What explainHit reads of a recall candidate. */
export interface ExplainedCandidate {
  readonly chunk: {
    readonly memoryId: string;
    readonly chunkId: string;
    readonly content: string;
    readonly turn?: true;
  };
  readonly score: number;
  readonly hops: number;
  readonly ranks?: FusedMemory["ranks"];
  readonly fusedScore?: number;
  readonly rerankScore?: number;
  readonly graphPath?: readonly string[];
  readonly graphSeedId?: string;
  readonly timeMatch?: number;
}

/** Each stage's view of a hit, from what the recall computed anyway (explain requests only). */
export function explainHit(
  c: ExplainedCandidate,
  share: number | undefined,
  fulltextHits: readonly { memoryId: string; chunkId: string; score: number }[],
  vectorHits: readonly VectorHit[],
  lexemes: ReadonlySet<string>,
  queryTime?: QueryTime,
): RecallExplanation {
  // A memory's channel scores are its best chunk's; a conversation turn's are its own (ADR 0530).
  const { memoryId, chunkId } = c.chunk;
  const same = (h: { memoryId: string; chunkId: string }) =>
    c.chunk.turn ? h.chunkId === chunkId : h.memoryId === memoryId;
  const fulltextScore = fulltextHits.find(same)?.score;
  const vectorDistance = vectorHits.find(same)?.distance;
  return {
    ...(c.ranks?.fulltext !== undefined ? { fulltextRank: c.ranks.fulltext } : {}),
    ...(fulltextScore !== undefined ? { fulltextScore } : {}),
    matchedTerms: matchedTerms(c.chunk.content, [...lexemes], cachedGermanStem),
    ...(c.ranks?.vector !== undefined ? { vectorRank: c.ranks.vector } : {}),
    ...(vectorDistance !== undefined ? { vectorDistance } : {}),
    ...(share !== undefined ? { fulltextShare: share } : {}),
    fusedScore: c.fusedScore ?? c.score,
    ...(c.rerankScore !== undefined ? { rerankScore: c.rerankScore } : {}),
    hops: c.hops,
    graphPath: c.graphPath ?? [],
    ...(c.graphSeedId !== undefined ? { graphSeedId: c.graphSeedId } : {}),
    ...(queryTime !== undefined
      ? { queryTime: { text: queryTime.text, from: queryTime.from, to: queryTime.to } }
      : {}),
    ...(c.timeMatch !== undefined ? { timeMatch: c.timeMatch } : {}),
  };
}
