import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { VectorHit, VectorStore } from "../vectors/vector-store.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";
import { searchVectorsFiltered, type VectorSearch } from "./filter/search-vectors-filtered.js";

/** A recall filter as the vector channel applies it: resolved, and a check of memory ids against it. */
export interface VectorChannelFilter {
  readonly resolved: Pick<ResolvedRecallFilter, "memoryIds" | "vectorWhere" | "share">;
  keepMemories(memoryIds: readonly string[]): Promise<Set<string>>;
}

/**
 * The vector channel: the query embedded as a query (asymmetric models and the built-in embedder's
 * expansion depend on it), searched in the tenant's table of the same embedding space, pre-filtered
 * by validity (docs/ingest.md "Vector API"). ANN indexes are the worker's business.
 */
export async function searchVectors(
  vectors: Pick<VectorStore, "search">,
  embedder: EmbeddingProvider,
  tenantId: string,
  query: string,
  depth: number,
  asOf: Date | undefined,
  filter?: Promise<VectorChannelFilter>,
): Promise<VectorHit[]> {
  const [[vector], resolved] = await Promise.all([embedder.embed([query], "query"), filter]);
  if (vector === undefined) return [];
  return searchVector(vectors, embedder.id, tenantId, vector, depth, asOf, resolved);
}

/**
 * One query vector's top `depth` in the tenant's table of `space`, valid at `asOf`, filtered, and
 * within `within` when given (a LanceDB predicate: the time channel's interval, ADR 0610).
 */
export function searchVector(
  vectors: Pick<VectorStore, "search">,
  space: string,
  tenantId: string,
  vector: Float32Array,
  depth: number,
  asOf: Date | undefined,
  filter: VectorChannelFilter | undefined,
  within?: string,
): Promise<VectorHit[]> {
  const search: VectorSearch = (k, filterWhere) => {
    const where =
      within === undefined
        ? filterWhere
        : filterWhere === undefined
          ? within
          : `(${within}) AND (${filterWhere})`;
    return vectors.search(tenantId, space, vector, k, {
      ...(asOf !== undefined ? { asOf } : {}),
      ...(where !== undefined ? { where } : {}),
    });
  };
  return filter === undefined
    ? search(depth)
    : searchVectorsFiltered(search, depth, filter.resolved, filter.keepMemories);
}
