/**
 * Recall latency at growing corpus sizes (issue #6 "Measure"):
 *
 *   npm run bench:recall -- [--sizes 1000,10000,100000] [--queries 200] [--no-vectors]
 *                           [--vectors-up-to N] [--database-url URL] [--out bench/results/recall.json]
 *                           [--no-peers] [--bulk-ingest 10000 (0: skip)] [--light] [--prf]
 *
 * One tenant is filled with synthetic German chunks built from the eval corpus (bench/synthetic-corpus.ts),
 * one chunk per memory, written the way ingest writes them (memory row, chunk with its german tsvector —
 * the BM25 triggers index it — and, unless --no-vectors, its built-in-embedder vector in LanceDB, with
 * the ANN index maintenance the worker runs). At each size the xquad_de questions run through the real
 * RecallService (Connect, auth, validation) with and without rerank: p50/p95/p99, sequential QPS, and
 * the per-stage server timings. At each size the BM25 peers (bench/bm25-peers.ts: the current design,
 * ts_rank_cd over GIN, LanceDB FTS, an in-process compact index) run on the same analysed tokens; and
 * once, a bulk-ingest row (bench/bulk-ingest.ts: memories into one tenant through the service with its
 * worker). Written to bench/results/recall.json.
 *
 * Filters (issue 22, ADR 0220): memory n has memory_type episodic when n % 50 = 0 (2 %), kind document
 * when n is even (50 %), tag t<n % 100> and source https://src<n % 20>/…; the pipeline without rerank
 * runs again with a selective filter (memory_types episodic, 2 %) and a broad one (kinds document, 50 %).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { MemoryKind, MemoryType } from "../gen/memory/v1/memory_pb.js";
import { RecallFilterSchema, RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
import { measureBm25Peers } from "./bm25-peers.js";
import { BULK_INGEST_DEFAULTS, measureBulkIngest } from "./bulk-ingest.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { percentile } from "./eval/retrieval-metrics.js";
import { startEvalCore } from "./eval/start-eval-core.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "200" },
    "no-vectors": { type: "boolean", default: false },
    // Embedding 100k chunks with the built-in embedder takes ~30 min on a busy 2-core machine: sizes above
    // this are filled and measured without the vector channel (reported per size).
    "vectors-up-to": { type: "string" },
    "database-url": { type: "string" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    out: { type: "string", default: "bench/results/recall.json" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
    "no-peers": { type: "boolean", default: false },
    "bulk-ingest": { type: "string", default: "10000" },
    // Recall's BM25 source (ADR 0230): the in-process index (default) or the SQL scorer (chunk tsvectors via GIN).
    "bm25-index": { type: "string", default: "memory" },
    // Only the BM25-only and no-rerank rows (unfiltered and filtered): skips the slow rerank row.
    light: { type: "boolean", default: false },
    // Recall's pseudo-relevance feedback stage (RECALL_PRF, ADR 0570) on.
    prf: { type: "boolean", default: false },
  },
});
const sizes = values.sizes.split(",").map(Number);
const queryCount = Number(values.queries);
const vectorsUpTo = values["no-vectors"] ? 0 : Number(values["vectors-up-to"] ?? Number.POSITIVE_INFINITY);
let withVectors = vectorsUpTo > 0;

// No worker: the fill writes rows and vectors itself (reconcile would re-embed a --no-vectors fill).
const core = await startEvalCore({
  databaseUrl: values["database-url"],
  lexiconCache: values["lexicon-cache"],
  worker: false,
  bm25Index: values["bm25-index"] === "sql" ? "sql" : "memory",
  prf: values.prf,
});
const corpus = await loadSyntheticCorpus(values["eval-dir"]);
const questions = (await readEvalDataset(join(values["eval-dir"], "xquad_de"))).queries.map((q) => q.text);
const { tenantId, headers } = await core.createTenant("bench-recall");
const { db, vectors } = core.storage;
const embedder = core.models.embedder;

/** Writes chunks [from, to) as one-chunk memories, as ingest's write path does, in batches. */
async function fill(from: number, to: number) {
  const batch = 500;
  for (let start = from; start < to; start += batch) {
    const texts = Array.from({ length: Math.min(batch, to - start) }, (_, i) => corpus.chunk(start + i));
    const rows = await db.withTenant(tenantId, async (tx) => {
      const memories = await tx<{ id: string; n: number }[]>`
        insert into memories (tenant_id, lineage_id, kind, memory_type, tags, source, title, content,
                              content_sha256, status, chunks_written)
        select ${tenantId}, gen_random_uuid(),
               case when (${start} + n) % 2 = 0 then 'document' else 'entry' end,
               case when (${start} + n) % 50 = 0 then 'episodic' else 'semantic' end,
               array['t' || ((${start} + n) % 100)], 'https://src' || ((${start} + n) % 20) || '/' || (${start} + n),
               'Notiz ' || (${start} + n), c, sha256(convert_to(c, 'UTF8')), 'indexed', 1
        from unnest(${tx.array(texts)}::text[]) with ordinality u(c, n)
        returning id, substring(title from 7)::int - ${start} as n`;
      const ids = memories.sort((a, b) => a.n - b.n).map((m) => m.id);
      return tx<{ id: string; memory_id: string; valid_from: Date }[]>`
        insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                            valid_from, vector_stored)
        select ${tenantId}, m, 0, c, 0, length(c), 0, to_tsvector('german', c),
               -- Valid times spread over two years (conversation turns keep their message time):
               -- the time rows below search one week or one year of them (ADR 0610).
               now() - make_interval(days => ((${start} + n)::int % 730), hours => ((${start} + n)::int * 7 % 24)),
               ${withVectors}
        from unnest(${tx.array(ids)}::uuid[], ${tx.array(texts)}::text[]) with ordinality u(m, c, n)
        returning id, memory_id, valid_from`;
    });
    if (withVectors) {
      const embedded = await embedder.embed(texts, "passage");
      await vectors.upsert(
        tenantId,
        embedder.id,
        rows.map((r, i) => ({
          chunkId: r.id,
          memoryId: r.memory_id,
          vector: embedded[i] ?? new Float32Array(embedder.dim),
          validFrom: r.valid_from,
          validTo: null,
        })),
      );
    }
  }
  if (withVectors) await maintainVectorTable(vectors, tenantId, embedder.id);
  // A running service has autovacuum and its statistics caught up; a bulk load measured at once has
  // neither (index-only scans would visit the heap, plans would use empty statistics).
  await db.sql`select bm25_compact(${tenantId})`;
  await db.sql.unsafe("vacuum analyze bm25_term_stats, bm25_stats_delta, chunks, memories");
}

const STAGES = {
  "no-rerank": { disableRerank: true },
  rerank: {},
  "bm25-only": { disableVector: true, disableGraph: true, disableRerank: true },
} as const;

const FILTERS: Record<string, MessageInitShape<typeof RecallFilterSchema> | undefined> = {
  none: undefined,
  "selective (memory_types episodic, 2 %)": { memoryTypes: [MemoryType.EPISODIC] },
  "broad (kinds document, 50 %)": { kinds: [MemoryKind.DOCUMENT] },
};

async function measure(
  stage: keyof typeof STAGES,
  filter?: MessageInitShape<typeof RecallFilterSchema>,
  asOf?: Date,
  /** Appended to every question: a time expression (the time channel, ADR 0610). */
  suffix = "",
) {
  const latencies: number[] = [];
  let hits = 0;
  const stageTimes = new Map<string, number[]>();
  const started = performance.now();
  for (let i = 0; i < queryCount; i++) {
    const t0 = performance.now();
    const response = await core.clients.recall.recall(
      {
        query: `${questions[i % questions.length] ?? ""}${suffix}`,
        k: 10,
        ...(filter !== undefined ? { filter: create(RecallFilterSchema, filter) } : {}),
        ...(asOf !== undefined ? { asOf: timestampFromDate(asOf) } : {}),
        stages: create(RecallStagesSchema, {
          ...STAGES[stage],
          ...(withVectors ? {} : { disableVector: true }),
        }),
      },
      { headers },
    );
    latencies.push(performance.now() - t0);
    hits += response.hits.length;
    for (const t of response.timings) stageTimes.set(t.stage, [...(stageTimes.get(t.stage) ?? []), t.ms]);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    qps: queryCount / seconds,
    meanHits: hits / queryCount,
    stageP50: Object.fromEntries([...stageTimes].map(([name, ms]) => [name, percentile(ms, 50)])),
  };
}

/** The pipeline without rerank, unfiltered and with each filter, back to back. */
async function measureFilters() {
  const rows: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  for (const [name, filter] of Object.entries(FILTERS)) rows[name] = await measure("no-rerank", filter);
  return rows;
}

const results: Record<string, unknown>[] = [];
let filled = 0;
let bulkIngest: Awaited<ReturnType<typeof measureBulkIngest>> | undefined;
/** Written after every step: a long run cut short still leaves what it measured. */
async function save() {
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(
    values.out,
    `${JSON.stringify(
      {
        queries: queryCount,
        vectorsUpTo,
        embedder: embedder.id,
        machine: { cpus: cpus().length, loadAverage: loadavg() },
        results,
        bulkIngest,
      },
      null,
      2,
    )}\n`,
  );
}
try {
  const bulkMemories = Number(values["bulk-ingest"]);
  if (bulkMemories > 0) {
    bulkIngest = await measureBulkIngest(core.models, {
      memories: bulkMemories,
      ...BULK_INGEST_DEFAULTS,
      evalDir: values["eval-dir"],
    });
    process.stdout.write(`bulk ingest: ${JSON.stringify(bulkIngest)}\n`);
    await save();
  }
  for (const size of sizes) {
    withVectors = size <= vectorsUpTo;
    const t0 = performance.now();
    await fill(filled, size);
    const loadMs = performance.now() - t0;
    filled = size;
    // What PostgreSQL keeps for BM25 besides the chunks (migration 0250: statistics only).
    const [statistics] = await db.sql<
      { bytes: string; text: string }[]
    >`select pg_total_relation_size('bm25_term_stats') + pg_total_relation_size('bm25_stats_delta')
               + pg_total_relation_size('bm25_collection') as bytes,
             (select sum(octet_length(content)) from chunks where tenant_id = ${tenantId} and valid_to is null) as text`;
    // A cold index: dropped from memory, one recall (answered by SQL, it starts the background build
    // for tenants above the inline limit) until the build has finished.
    core.bm25Index?.forget(tenantId);
    const coldStarted = performance.now();
    await core.clients.recall.recall({ query: questions[0] ?? "", k: 10 }, { headers });
    await core.bm25Index?.idle();
    const coldBuildMs = performance.now() - coldStarted;
    // Warm caches and the connection pool once, as a running service would be (and let the
    // in-process BM25 index, built in the background on the first recall, finish).
    await measure("bm25-only");
    const indexStarted = performance.now();
    await core.bm25Index?.idle();
    const indexBuildMs = performance.now() - indexStarted;
    const row = {
      chunks: size,
      vectorChannel: withVectors,
      bm25StatisticsBytes: Number(statistics?.bytes ?? 0),
      chunkTextBytes: Number(statistics?.text ?? 0),
      loadMs: Math.round(loadMs),
      bm25Index: values["bm25-index"],
      indexWaitMs: Math.round(indexBuildMs),
      coldIndexBuildMs: Math.round(coldBuildMs),
      indexStats: core.bm25Index?.stats(),
      bm25Only: await measure("bm25-only"),
      withoutRerank: await measure("no-rerank"),
      withRerank: values.light ? undefined : await measure("rerank"),
      filtered: await measureFilters(),
      // Point-in-time recall at an instant after the fill: every chunk valid then, none closed since
      // (the SQL scorer's worst case; the index answers the current part, SQL the closed part).
      asOf: {
        bm25Only: await measure("bm25-only", undefined, new Date()),
        withoutRerank: await measure("no-rerank", undefined, new Date()),
        selective: await measure("no-rerank", FILTERS["selective (memory_types episodic, 2 %)"], new Date()),
      },
      // Questions about time (ADR 0610): the time channel searches the chunks valid in the interval —
      // about 1 % of them for a week, half for a year — beside the channels.
      time: {
        lastWeek: await measure("no-rerank", undefined, undefined, " letzte Woche"),
        lastYear: await measure("no-rerank", undefined, undefined, " im letzten Jahr"),
      },
      bm25Peers: values["no-peers"]
        ? undefined
        : await measureBm25Peers(db, tenantId, questions.slice(0, queryCount)),
    };
    results.push(row);
    process.stdout.write(
      `${size} chunks, filters (pipeline without rerank, p50/p95/p99 ms): ${Object.entries(row.filtered)
        .map(
          ([name, m]) =>
            `${name} ${m.p50.toFixed(1)}/${m.p95.toFixed(1)}/${m.p99.toFixed(1)} (${m.meanHits.toFixed(1)} hits)`,
        )
        .join("; ")}\n` +
        `${size} chunks, time questions (without rerank): "letzte Woche" p50 ${row.time.lastWeek.p50.toFixed(1)} / p95 ${row.time.lastWeek.p95.toFixed(1)} ms (${row.time.lastWeek.meanHits.toFixed(1)} hits), "im letzten Jahr" p50 ${row.time.lastYear.p50.toFixed(1)} / p95 ${row.time.lastYear.p95.toFixed(1)} ms\n` +
        `${size} chunks: bm25-only p50 ${row.bm25Only.p50.toFixed(1)} / p95 ${row.bm25Only.p95.toFixed(1)} / p99 ${row.bm25Only.p99.toFixed(1)} ms; pipeline without rerank p50 ${row.withoutRerank.p50.toFixed(1)} / p95 ${row.withoutRerank.p95.toFixed(1)} / p99 ${row.withoutRerank.p99.toFixed(1)} ms, ${row.withoutRerank.qps.toFixed(1)} QPS; with rerank p50 ${row.withRerank?.p50.toFixed(1)} ms (rerank stage p50 ${(row.withRerank?.stageP50.rerank ?? 0).toFixed(1)} ms)\n`,
    );
    process.stdout.write(
      `${size} chunks, as_of: bm25-only p50 ${row.asOf.bm25Only.p50.toFixed(1)} / p95 ${row.asOf.bm25Only.p95.toFixed(1)} / p99 ${row.asOf.bm25Only.p99.toFixed(1)} ms; without rerank p50 ${row.asOf.withoutRerank.p50.toFixed(1)} / p95 ${row.asOf.withoutRerank.p95.toFixed(1)} / p99 ${row.asOf.withoutRerank.p99.toFixed(1)} ms; selective filter p50 ${row.asOf.selective.p50.toFixed(1)} / p95 ${row.asOf.selective.p95.toFixed(1)} / p99 ${row.asOf.selective.p99.toFixed(1)} ms\n`,
    );
    if (row.bm25Peers) process.stdout.write(`  peers: ${JSON.stringify(row.bm25Peers)}\n`);
    await save();
  }
  await save();
} finally {
  await core.stop();
}
