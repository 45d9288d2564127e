import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { VectorHit, VectorStore } from "../vectors/vector-store.js";

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
): Promise<VectorHit[]> {
  const [vector] = await embedder.embed([query], "query");
  if (vector === undefined) return [];
  return vectors.search(tenantId, embedder.id, vector, depth, asOf === undefined ? {} : { asOf });
}
