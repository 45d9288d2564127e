import { availableParallelism } from "node:os";
import type * as lancedb from "@lancedb/lancedb";
import { padToStoredDim } from "../models/pad-to-stored-dim.js";
import { createGroupCommit } from "./group-commit.js";
import { createIndexCoverage } from "./index-coverage.js";

const SEARCH_EF = 200;
/**
 * Batches of one key that may run at once: one per core, as LanceDB's search threads. One lane kept
 * the 2-core machine as busy but made searches queue behind the running batch (bench:load vector
 * stage mean 135–157 ms with one lane, 106 ms with two, at the same req/s).
 */
const LANES = Math.max(1, availableParallelism());
/**
 * Candidates re-ranked with their exact vectors per result row. 2 keeps the same share of an exact
 * top 50 as 4 did (0.981 at 10k rows) for ≈ 27 % less CPU per search (3.9 instead of 5.3 ms: the
 * re-ranking reads every candidate's full vector); 1 drops to 0.968 (bench/vector-search-cost.ts).
 */
const SEARCH_REFINE_FACTOR = 2;
/**
 * A cosine HNSW-SQ index answers the squared L2 distance of the normalised (quantised) vectors,
 * 2 × (1 − cos), where flat search and re-ranking answer 1 − cos (lancedb/lancedb#3530, open):
 * measured slope 1.98, intercept 0.014, residual sd 0.014 against the exact distance on 3,000
 * built-in-embedder rows. Fusion calibrates on cosine distance, so index distances are halved;
 * test/ingest/vector-store.test.ts fails if a LanceDB upgrade changes the scale.
 */
const INDEX_DISTANCE_SCALE = 2;

/** One nearest-neighbour search: its table, query vector, row count and LanceDB predicate. */
export interface VectorSearch {
  readonly table: lancedb.Table;
  readonly vector: Float32Array;
  readonly k: number;
  readonly where: string;
}

/** One vector search hit: cosine distance, lower is closer. */
export interface VectorHit {
  readonly chunkId: string;
  readonly memoryId: string;
  readonly distance: number;
}

/**
 * Runs concurrent searches of one table with the same k and predicate as one LanceDB query with
 * several query vectors (issue 15, load). Measured end to end, not per search: bench:load at 50
 * connections gave 156–184 req/s with it against 140–149 without, in alternated runs on the same
 * machine (docs/observability.md "Load"); bench/vector-search-cost.ts shows no lower CPU per search
 * in isolation (4.1 vs 3.9 ms at 50 at a time), so the gain is in running fewer, larger native
 * searches beside the service's own thread, not in the search itself. A search with nothing running
 * on its key and lane starts at once; those arriving while a batch runs go together in that lane's
 * next one. Each vector gets the rows its own search would (LanceDB applies `limit` per query vector
 * and tags rows with `query_index`).
 */
export function createSearchCoalescer(): (key: string, search: VectorSearch) => Promise<VectorHit[]> {
  const indexCovers = createIndexCoverage();
  const run = createGroupCommit<VectorSearch, VectorHit[]>(
    async (_key, searches) => {
      const [first, ...rest] = searches;
      if (first === undefined) return [];
      let query = first.table.vectorSearch(Array.from(padToStoredDim(first.vector)));
      for (const search of rest) query = query.addQueryVector(Array.from(padToStoredDim(search.vector)));
      // ef and the refine factor only matter once the worker has built the HNSW-SQ index
      // (maintain-vector-table.ts); a flat search ignores both. HNSW refuses ef below the rows it is
      // asked for — k, or k × refine factor with re-ranking: a filtered recall over-fetching 60 or
      // more rows (ADR 0220) lost its vector channel on indexed tables until ef followed that.
      // Every row indexed: the index's own (8-bit) distances rank the candidates, without re-reading
      // their full vectors — that re-read was half of LanceDB's CPU per recall (ADR 0300). `fastSearch`
      // keeps rows a concurrent write appends out of this one search, so every distance comes from the
      // index and is on its scale. Otherwise exact re-ranking: a wider candidate list re-ranked with
      // the exact vectors brings recall@10 against an exact search from ≈ 0.56 to ≈ 0.92–0.98 on our
      // vectors at 10k rows (docs/ingest.md "ANN index"), and LanceDB reports indexed and
      // flat-searched rows on different scales without it.
      const covered = await indexCovers(first.table);
      query = query.distanceType("cosine");
      query = covered
        ? query.ef(Math.max(SEARCH_EF, first.k)).fastSearch()
        : query.ef(Math.max(SEARCH_EF, first.k * SEARCH_REFINE_FACTOR)).refineFactor(SEARCH_REFINE_FACTOR);
      const scale = covered ? INDEX_DISTANCE_SCALE : 1;
      const rows = (await query
        .where(first.where)
        .select(["chunk_id", "memory_id", "_distance"])
        .limit(first.k)
        .toArray()) as { query_index?: number; chunk_id: string; memory_id: string; _distance: number }[];
      const hits = searches.map((): VectorHit[] => []);
      for (const r of rows) {
        hits[r.query_index ?? 0]?.push({
          chunkId: r.chunk_id,
          memoryId: r.memory_id,
          distance: r._distance / scale,
        });
      }
      // Equal distances (near-identical texts; the index's 8-bit distances tie often) come back in
      // the order the table's fragments were read in, which compaction can change between two
      // searches: the memory id breaks ties between memories. Within one memory the table's order
      // stays (a stable sort): it is the chunks' written order, the same after an export and import,
      // where chunk ids are new.
      for (const list of hits) list.sort(byDistanceThenMemory);
      return hits.map((value) => ({ ok: true as const, value }));
    },
    // A batch of one starts at once; only searches arriving during a running batch wait for it.
    { lingerMs: 0, maxRows: 1 },
  );
  let lane = 0;
  return (key, search) => {
    lane = (lane + 1) % LANES;
    return run(`${key}\u0000${lane}`, search, 1);
  };
}

function byDistanceThenMemory(a: VectorHit, b: VectorHit): number {
  return a.distance - b.distance || (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0);
}
