import { ProviderError } from "../models/provider-error.js";
import type { VectorHit } from "../vectors/vector-store.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";
import type { RecallDeps } from "./recall-deps.js";
import type { RecallOptions } from "./recall-options.js";
import { searchVectors } from "./search-vectors.js";
import type { StageTimer } from "./stage-timer.js";

/** The vector channel of one recall, running beside the snapshot's channels. */
export interface VectorChannel {
  readonly hits: Promise<VectorHit[]>;
  /** A BYOK provider's failure, which fails the recall (strictProviders); set once `hits` settled. */
  providerFailure(): ProviderError | undefined;
}

/** Embeds the query and searches the vectors (after the filter is resolved, when there is one). */
export function startVectorChannel(
  deps: RecallDeps,
  tenantId: string,
  options: RecallOptions,
  depth: number,
  timer: StageTimer,
  resolving: Promise<ResolvedRecallFilter> | undefined,
): VectorChannel {
  let providerFailure: ProviderError | undefined;
  const hits: Promise<VectorHit[]> = options.stages.vector
    ? timer
        .time("vector", () =>
          searchVectors(
            deps.vectors,
            deps.embedder,
            tenantId,
            options.query,
            depth,
            options.asOf,
            resolving?.then((filter) => ({
              resolved: filter,
              keepMemories: (ids: readonly string[]) =>
                deps.db.withTenant(tenantId, (tx) => filter.keepMemories(tx, ids)),
            })),
          ),
        )
        .catch((error: unknown) => {
          if (deps.strictProviders && error instanceof ProviderError) providerFailure = error;
          // A failing embedder must not take recall down: BM25 still answers.
          deps.logger.warn({ err: error, tenantId }, "vector channel failed; recall continues without it");
          return [];
        })
    : Promise.resolve([]);
  return { hits, providerFailure: () => providerFailure };
}
