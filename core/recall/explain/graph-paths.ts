/** A memory reached over the graph: the relation and node it was first reached over. */
export interface ReachedNode {
  readonly memoryId: string;
  readonly viaRelType: string;
  readonly fromId: string;
}

export interface GraphPath {
  /** Relation types from the seed, in walking order. */
  readonly relTypes: readonly string[];
  readonly seedId: string;
}

/**
 * The path of every reached node back to its seed (explain: "graph path with relation types and hop
 * count"). Each node is reached once, from a seed or a node of the previous hop, so following
 * `fromId` ends at a node that was not reached itself — the seed.
 */
export function graphPaths(reached: readonly ReachedNode[]): Map<string, GraphPath> {
  const byId = new Map(reached.map((n) => [n.memoryId, n]));
  const paths = new Map<string, GraphPath>();
  const pathOf = (id: string, depth: number): GraphPath => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    // depth guards against a cycle in malformed input; the walk never produces one.
    if (node === undefined || depth > byId.size) return { relTypes: [], seedId: id };
    const from = pathOf(node.fromId, depth + 1);
    const path = { relTypes: [...from.relTypes, node.viaRelType], seedId: from.seedId };
    paths.set(id, path);
    return path;
  };
  for (const n of reached) pathOf(n.memoryId, 0);
  return paths;
}
