import { ProviderError } from "../models/provider-error.js";
import type { VectorHit } from "../vectors/vector-store.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";
import type { RecallDeps } from "./recall-deps.js";
import type { RecallOptions } from "./recall-options.js";
import { searchVector, type VectorChannelFilter } from "./search-vectors.js";
import type { StageTimer } from "./stage-timer.js";
import type { QueryTime } from "./time/parse-query-time.js";
import { mergeVectorHits, searchTimeWindow } from "./time/search-time-window.js";

/** The vector channel of one recall, running beside the snapshot's channels. */
export interface VectorChannel {
  readonly hits: Promise<VectorHit[]>;
  /** A BYOK provider's failure, which fails the recall (strictProviders); set once `hits` settled. */
  providerFailure(): ProviderError | undefined;
  /** The query's vector once `hits` settled; undefined when the channel is off or failed. */
  queryVector(): Float32Array | undefined;
  /** Another vector searched as the query was (same depth, `as_of`, filter): dense feedback (ADR 0570). */
  searchAgain(vector: Float32Array): Promise<VectorHit[]>;
  /** The chunks the time channel found (ADR 0610), once `hits` settled; empty without a time expression. */
  windowChunkIds(): readonly string[];
}

/**
 * Embeds the query and searches the vectors (after the filter is resolved, when there is one). With a
 * time expression the same vector is also searched among the chunks valid in its interval (the time
 * channel, ADR 0610), and those hits join the channel's.
 */
export function startVectorChannel(
  deps: RecallDeps,
  tenantId: string,
  options: RecallOptions,
  depth: number,
  timer: StageTimer,
  resolving: Promise<ResolvedRecallFilter> | undefined,
  window?: Pick<QueryTime, "from" | "to">,
): VectorChannel {
  let providerFailure: ProviderError | undefined;
  let queryVector: Float32Array | undefined;
  let windowChunkIds: readonly string[] = [];
  const filter: Promise<VectorChannelFilter> | undefined = resolving?.then((resolved) => ({
    resolved,
    keepMemories: (ids: readonly string[]) =>
      deps.db.withTenant(tenantId, (tx) => resolved.keepMemories(tx, ids)),
  }));
  const search = async (vector: Float32Array, k = depth, within?: string) =>
    searchVector(deps.vectors, deps.embedder.id, tenantId, vector, k, options.asOf, await filter, within);
  // The window is searched as the channel is (filter, `as_of`), with the interval as one more predicate.
  const searchWindow = (vector: Float32Array, time: Pick<QueryTime, "from" | "to">) =>
    searchTimeWindow(
      (k, within) => search(vector, k, within),
      time,
      depth,
      (error) =>
        deps.logger.warn({ err: error, tenantId }, "time channel failed; recall continues without it"),
    );
  const hits: Promise<VectorHit[]> = options.stages.vector
    ? timer
        .time("vector", async () => {
          const [vector] = await deps.embedder.embed([options.query], "query");
          if (vector === undefined) return [];
          const [found, inWindow] = await Promise.all([
            search(vector),
            window === undefined ? [] : searchWindow(vector, window),
          ]);
          queryVector = vector;
          windowChunkIds = inWindow.map((h) => h.chunkId);
          return window === undefined ? found : mergeVectorHits(found, inWindow);
        })
        .catch((error: unknown) => {
          if (deps.strictProviders && error instanceof ProviderError) providerFailure = error;
          // A failing embedder must not take recall down: BM25 still answers.
          deps.logger.warn({ err: error, tenantId }, "vector channel failed; recall continues without it");
          return [];
        })
    : Promise.resolve([]);
  return {
    hits,
    providerFailure: () => providerFailure,
    queryVector: () => queryVector,
    searchAgain: (vector) => search(vector),
    windowChunkIds: () => windowChunkIds,
  };
}
