/**
 * Reciprocal Rank Fusion per memory (DESIGN "Recall" 3): each channel ranks memories by their best
 * chunk; a memory's fused score is Σ weight / (k + rank) over the channels that found it. Ranks, not
 * scores, are fused, because BM25 scores and cosine distances live on unrelated scales.
 */

/** A channel's chunk hits, best first, already mapped to their memories. */
export interface ChannelHit {
  readonly memoryId: string;
  readonly chunkId: string;
}

export interface RankedChannel {
  readonly name: "fulltext" | "vector";
  readonly hits: readonly ChannelHit[];
  /** Weight of the channel in the fusion (1 for equal say). */
  readonly weight: number;
}

export interface FusedMemory {
  readonly memoryId: string;
  readonly score: number;
  /** The chunk that stands for the memory: its best chunk in the channel that ranked it highest. */
  readonly chunkId: string;
  /** 1-based rank of the memory in each channel that found it. */
  readonly ranks: Readonly<Partial<Record<RankedChannel["name"], number>>>;
}

/** The constant of the original RRF paper (Cormack et al. 2009): damps the head of each list. */
export const RRF_K = 60;

export function fuseReciprocalRank(channels: readonly RankedChannel[], rrfK = RRF_K): FusedMemory[] {
  const fused = new Map<
    string,
    {
      score: number;
      chunkId: string;
      best: number;
      /** Best single rank, then channel order: the tie-breaker. */
      tie: number;
      ranks: Partial<Record<RankedChannel["name"], number>>;
    }
  >();
  for (const [channelIndex, channel] of channels.entries()) {
    let rank = 0;
    const seen = new Set<string>();
    for (const hit of channel.hits) {
      // A memory's rank in a channel is the rank of its best chunk; later chunks of it do not count.
      if (seen.has(hit.memoryId)) continue;
      seen.add(hit.memoryId);
      rank++;
      const contribution = channel.weight / (rrfK + rank);
      const tie = rank * channels.length + channelIndex;
      const entry = fused.get(hit.memoryId);
      if (entry === undefined) {
        fused.set(hit.memoryId, {
          score: contribution,
          chunkId: hit.chunkId,
          best: contribution,
          tie,
          ranks: { [channel.name]: rank },
        });
      } else {
        entry.score += contribution;
        entry.tie = Math.min(entry.tie, tie);
        entry.ranks[channel.name] = rank;
        if (contribution > entry.best) {
          entry.best = contribution;
          entry.chunkId = hit.chunkId;
        }
      }
    }
  }
  // Equal sums are common (rank r in one channel only, either channel): the better single rank wins,
  // then the earlier channel (full text, whose matches are explainable), then the id for stability.
  return orderFused(fused);
}

/** A fused entry before ordering: its score, representative chunk, channel ranks and tie-breaker. */
export interface FusedEntry {
  readonly score: number;
  readonly chunkId: string;
  readonly tie: number;
  readonly ranks: FusedMemory["ranks"];
}

/**
 * Best score first; equal scores by the tie-breaker (best single rank, then channel order), then by
 * id for a stable order. Shared by every fusion so they break ties alike.
 */
export function orderFused(fused: ReadonlyMap<string, FusedEntry>): FusedMemory[] {
  return [...fused]
    .map(([memoryId, e]) => ({ memoryId, score: e.score, chunkId: e.chunkId, ranks: e.ranks, tie: e.tie }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.tie - b.tie ||
        (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0),
    )
    .map(({ tie: _tie, ...memory }) => memory);
}
