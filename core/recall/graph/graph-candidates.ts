import type { TransactionSql } from "../../store/database.js";
import { graphPaths } from "../explain/graph-paths.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import { readFirstChunks } from "../read-candidate-chunks.js";
import type { Candidate } from "../recall-candidate.js";
import type { RecallOptions } from "../recall-options.js";
import { expandNeighbours } from "./expand-neighbours.js";
import { spreadGraphScores } from "./spread-graph-scores.js";

/** Neighbours of the best seeds enter with a decayed score; direct hits keep their own. */
export async function expandGraph(
  tx: TransactionSql,
  tenantId: string,
  candidates: readonly Candidate[],
  options: RecallOptions,
  seedCount: number,
  filter: ResolvedRecallFilter | undefined,
): Promise<Candidate[]> {
  const seeds = seedMemories(candidates, seedCount);
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

/**
 * The best `count` candidates of distinct memories: several turns of one conversation session can be
 * candidates (ADR 0530), and the session is one node, seeded by its best turn. Every other memory is
 * a candidate once, so for them this is the first `count`.
 */
function seedMemories(candidates: readonly Candidate[], count: number): Candidate[] {
  const seen = new Set<string>();
  const seeds: Candidate[] = [];
  for (const c of candidates) {
    if (seeds.length >= count) break;
    if (seen.has(c.chunk.memoryId)) continue;
    seen.add(c.chunk.memoryId);
    seeds.push(c);
  }
  return seeds;
}
