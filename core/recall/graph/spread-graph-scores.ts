/**
 * Graph hops (DESIGN "Recall" 4): memories reached from the best seeds enter with the score of the
 * node they were reached from, decayed once per hop, so a neighbour never outranks the seed that led
 * to it and two hops weigh less than one.
 */
export interface GraphNeighbour {
  readonly memoryId: string;
  readonly hops: number;
  readonly fromId: string;
}

export interface SpreadScore {
  readonly memoryId: string;
  readonly score: number;
  readonly hops: number;
}

export const GRAPH_DECAY = 0.5;

export function spreadGraphScores(
  seedScores: ReadonlyMap<string, number>,
  neighbours: readonly GraphNeighbour[],
  decay = GRAPH_DECAY,
): SpreadScore[] {
  const scores = new Map(seedScores);
  const out: SpreadScore[] = [];
  // Breadth first: a node's source is always a seed or a node of the previous hop.
  for (const n of [...neighbours].sort((a, b) => a.hops - b.hops)) {
    const from = scores.get(n.fromId);
    if (from === undefined || scores.has(n.memoryId)) continue;
    const score = from * decay;
    scores.set(n.memoryId, score);
    out.push({ memoryId: n.memoryId, score, hops: n.hops });
  }
  return out.sort((a, b) => b.score - a.score || a.hops - b.hops || (a.memoryId < b.memoryId ? -1 : 1));
}
