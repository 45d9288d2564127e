/**
 * BM25 designs side by side on one tenant's current chunks and the same analysed query tokens (issue
 * #23 "Measure"): each query runs through PostgreSQL's `german` analyzer once, and every design gets
 * the resulting lexemes (idf-weighted as recall plans them):
 *
 *   current     core/recall/bm25/search-bm25.ts: exact BM25 in SQL over the tsvectors of the chunks
 *               holding a query term (the SQL path since migration 0250 dropped bm25_postings)
 *   tsRankCd    PostgreSQL ts_rank_cd over a GIN index on the chunks' tsvectors (not BM25: its own
 *               ranking). The service keeps no such index (migration 0270: under row-level security
 *               `@@` cannot use it), so this bench builds one for the row and queries as the table
 *               owner, whom the tenant policy does not filter — the peer as PostgreSQL can serve it.
 *   lanceFts    LanceDB's full-text index (BM25 with its own statistics) over the same lexemes
 *   compact     core/recall/bm25/compact-bm25-index.ts, built from PostgreSQL: per term a chunk-ordinal
 *               array and a tf array, document lengths, exhaustive term-at-a-time accumulation —
 *               exact BM25, the same scores as `current` (ADR 0230)
 *
 * Reports latency percentiles, storage next to the chunk text size, and for each design the share of
 * queries whose top k equals `current`'s (the ranking the service must keep).
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { analyzeQueryTexts } from "../core/recall/bm25/analyze-query-texts.js";
import { lengthNormalisation } from "../core/recall/bm25/bm25-parameters.js";
import { loadCompactBm25Index } from "../core/recall/bm25/compact-bm25-index.js";
import { type Bm25Term, planBm25Terms } from "../core/recall/bm25/plan-bm25-terms.js";
import { searchBm25 } from "../core/recall/bm25/search-bm25.js";
import {
  type CollectionStatistics,
  readCollectionStatistics,
} from "../core/recall/read-collection-statistics.js";
import type { Database } from "../core/store/database.js";
import { percentile } from "./eval/retrieval-metrics.js";

interface Latency {
  p50: number;
  p95: number;
  p99: number;
}

export interface PeerRow {
  readonly latencyMs: Latency;
  /** Bytes of the design's index structures. */
  readonly bytes: number;
  /** Queries whose top-k chunk ids equal the current design's (same order). */
  readonly sameTopK: number;
  readonly buildMs?: number;
}

export interface PeersResult {
  readonly queries: number;
  readonly k: number;
  readonly chunkTextBytes: number;
  readonly current: PeerRow;
  readonly tsRankCd: PeerRow;
  readonly lanceFts: PeerRow;
  readonly compact: PeerRow;
}

async function dirBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? await dirBytes(path) : (await stat(path)).size;
  }
  return bytes;
}

const latency = (ms: number[]): Latency => ({
  p50: percentile(ms, 50),
  p95: percentile(ms, 95),
  p99: percentile(ms, 99),
});

type Hit = { chunkId: string; score?: number };
/** Same ranking: equal ids in order, or (exact scorers) equal scores where floating-point sums tie. */
const sameRanking = (a: readonly Hit[], b: readonly Hit[]) =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i];
    if (x.chunkId === y?.chunkId) return true;
    return x.score !== undefined && y?.score !== undefined && Math.abs(x.score - y.score) < 1e-9;
  });

export async function measureBm25Peers(
  db: Database,
  tenantId: string,
  questions: readonly string[],
  k = 10,
): Promise<PeersResult> {
  // The analysed query tokens, once, as recall plans them (user words only, weight 1 × idf).
  const planned = await db.withTenant(tenantId, async (tx) => {
    const collection = await readCollectionStatistics(tx, tenantId);
    const out: Bm25Term[][] = [];
    for (const q of questions) {
      out.push(planBm25Terms(await analyzeQueryTexts(tx, tenantId, [q]), [1], collection.chunkCount));
    }
    return { collection, terms: out };
  });
  const collection: CollectionStatistics = planned.collection;
  const norm = lengthNormalisation(collection);

  const timeEach = async (run: (terms: Bm25Term[]) => Promise<Hit[]>) => {
    const ms: number[] = [];
    const results: Hit[][] = [];
    for (const terms of planned.terms) await run(terms); // warm
    for (const terms of planned.terms) {
      const t0 = performance.now();
      results.push(await run(terms));
      ms.push(performance.now() - t0);
    }
    return { ms, results };
  };

  const current = await timeEach((terms) =>
    db.withTenant(tenantId, async (tx) => (await searchBm25(tx, tenantId, terms, collection, k)).hits),
  );
  const same = (results: Hit[][]) =>
    results.filter((r, i) => sameRanking(r, current.results[i] ?? [])).length;

  const tsQuery = (terms: readonly Bm25Term[]) =>
    terms.map((t) => `'${t.term.replaceAll("'", "''").replaceAll("\\", "\\\\")}'`).join(" | ");
  const ginStarted = performance.now();
  await db.sql`create index if not exists bench_peers_chunks_tsv_gin on chunks using gin (tsv)`;
  const ginBuildMs = performance.now() - ginStarted;
  const tsRank = await timeEach((terms) =>
    terms.length === 0
      ? Promise.resolve([])
      : db.sql<{ id: string }[]>`
            select id from chunks
            where tenant_id = ${tenantId} and valid_to is null and tsv @@ ${tsQuery(terms)}::tsquery
            order by ts_rank_cd(tsv, ${tsQuery(terms)}::tsquery) desc, id limit ${k}`.then((rows) =>
          rows.map((r) => ({ chunkId: r.id })),
        ),
  );

  const [sizes] = await db.sql<{ postings: string; gin: string; text: string }[]>`
    select pg_total_relation_size('bm25_term_stats') + pg_total_relation_size('bm25_stats_delta') as postings,
           pg_relation_size('bench_peers_chunks_tsv_gin') as gin,
           (select sum(octet_length(content)) from chunks where tenant_id = ${tenantId} and valid_to is null) as text`;
  await db.sql`drop index bench_peers_chunks_tsv_gin`;

  const compactStarted = performance.now();
  const index = await db.withTenant(tenantId, (tx) => loadCompactBm25Index(tx, tenantId));
  const compactBuildMs = performance.now() - compactStarted;
  const compact = await timeEach(async (terms) => index.search(terms, norm, k));

  // LanceDB FTS over the same lexemes: each chunk's text is its lexemes, repeated tf times.
  const dir = await mkdtemp(join(tmpdir(), "bench-lance-fts-"));
  let lance: { ms: number[]; results: Hit[][] };
  let lanceBuildMs = 0;
  let lanceBytes = 0;
  try {
    const connection = await lancedb.connect(dir);
    const rows = await db.withTenant(
      tenantId,
      (tx) => tx<{ id: string; text: string }[]>`
        select c.id, string_agg(array_to_string(array_fill(u.lexeme, array[least(coalesce(cardinality(u.positions), 1), 256)]), ' '), ' ') as text
        from chunks c cross join lateral unnest(c.tsv) u
        where c.tenant_id = ${tenantId} and c.valid_to is null group by c.id`,
    );
    const started = performance.now();
    const table = await connection.createTable(
      "fts",
      rows.map((r) => ({ id: r.id, text: r.text })),
    );
    await table.createIndex("text", {
      config: lancedb.Index.fts({
        baseTokenizer: "whitespace",
        lowercase: false,
        stem: false,
        removeStopWords: false,
        asciiFolding: false,
        withPosition: false,
      }),
    });
    lanceBuildMs = performance.now() - started;
    lanceBytes = await dirBytes(join(dir, "fts.lance", "_indices"));
    lance = await timeEach(async (terms) => {
      if (terms.length === 0) return [];
      const hits = (await table
        .search(terms.map((t) => t.term).join(" "), "fts")
        .select(["id"])
        .limit(k)
        .toArray()) as { id: string }[];
      return hits.map((h) => ({ chunkId: h.id }));
    });
    connection.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  return {
    queries: questions.length,
    k,
    chunkTextBytes: Number(sizes?.text ?? 0),
    current: {
      latencyMs: latency(current.ms),
      bytes: Number(sizes?.postings ?? 0),
      sameTopK: current.results.length,
    },
    tsRankCd: {
      latencyMs: latency(tsRank.ms),
      bytes: Number(sizes?.gin ?? 0),
      sameTopK: same(tsRank.results),
      buildMs: Math.round(ginBuildMs),
    },
    lanceFts: {
      latencyMs: latency(lance.ms),
      bytes: lanceBytes,
      sameTopK: same(lance.results),
      buildMs: Math.round(lanceBuildMs),
    },
    compact: {
      latencyMs: latency(compact.ms),
      bytes: index.bytes,
      sameTopK: same(compact.results),
      buildMs: Math.round(compactBuildMs),
    },
  };
}
