/**
 * Recall latency at growing corpus sizes (issue #6 "Measure"):
 *
 *   npm run bench:recall -- [--sizes 1000,10000,100000] [--queries 200] [--no-vectors]
 *                           [--vectors-up-to N] [--database-url URL] [--out bench/results/recall.json]
 *
 * One tenant is filled with synthetic German chunks built from the eval corpus (bench/synthetic-corpus.ts),
 * one chunk per memory, written the way ingest writes them (memory row, chunk with its german tsvector —
 * the BM25 triggers index it — and, unless --no-vectors, its built-in-embedder vector in LanceDB, with
 * the ANN index maintenance the worker runs). At each size the xquad_de questions run through the real
 * RecallService (Connect, auth, validation) with and without rerank: p50/p95/p99, sequential QPS, and
 * the per-stage server timings. Written to bench/results/recall.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
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
  },
});
const sizes = values.sizes.split(",").map(Number);
const queryCount = Number(values.queries);
const vectorsUpTo = values["no-vectors"] ? 0 : Number(values["vectors-up-to"] ?? Number.POSITIVE_INFINITY);
let withVectors = vectorsUpTo > 0;

const core = await startEvalCore({
  databaseUrl: values["database-url"],
  lexiconCache: values["lexicon-cache"],
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
        insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256, status, chunks_written)
        select ${tenantId}, gen_random_uuid(), 'entry', 'Notiz ' || (${start} + n), c,
               sha256(convert_to(c, 'UTF8')), 'indexed', 1
        from unnest(${tx.array(texts)}::text[]) with ordinality u(c, n)
        returning id, substring(title from 7)::int - ${start} as n`;
      const ids = memories.sort((a, b) => a.n - b.n).map((m) => m.id);
      return tx<{ id: string; memory_id: string; valid_from: Date }[]>`
        insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                            lexeme_count, valid_from, vector_stored)
        select ${tenantId}, m, 0, c, 0, length(c), 0, to_tsvector('german', c),
               (select coalesce(sum(cardinality(x.positions)), 0) from unnest(to_tsvector('german', c)) x)::int,
               now(), ${withVectors}
        from unnest(${tx.array(ids)}::uuid[], ${tx.array(texts)}::text[]) u(m, c)
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
  await db.sql.unsafe("vacuum analyze bm25_postings, bm25_term_stats, bm25_stats_delta, chunks, memories");
}

const STAGES = {
  "no-rerank": { disableRerank: true },
  rerank: {},
  "bm25-only": { disableVector: true, disableGraph: true, disableRerank: true },
} as const;

async function measure(stage: keyof typeof STAGES) {
  const latencies: number[] = [];
  const stageTimes = new Map<string, number[]>();
  const started = performance.now();
  for (let i = 0; i < queryCount; i++) {
    const t0 = performance.now();
    const response = await core.clients.recall.recall(
      {
        query: questions[i % questions.length] ?? "",
        k: 10,
        stages: create(RecallStagesSchema, {
          ...STAGES[stage],
          ...(withVectors ? {} : { disableVector: true }),
        }),
      },
      { headers },
    );
    latencies.push(performance.now() - t0);
    for (const t of response.timings) stageTimes.set(t.stage, [...(stageTimes.get(t.stage) ?? []), t.ms]);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    qps: queryCount / seconds,
    stageP50: Object.fromEntries([...stageTimes].map(([name, ms]) => [name, percentile(ms, 50)])),
  };
}

const results = [];
let filled = 0;
try {
  for (const size of sizes) {
    withVectors = size <= vectorsUpTo;
    const t0 = performance.now();
    await fill(filled, size);
    const loadMs = performance.now() - t0;
    filled = size;
    const [postings] = await db.sql<
      { n: string }[]
    >`select count(*) as n from bm25_postings where tenant_id = ${tenantId}`;
    // Warm caches and the connection pool once, as a running service would be.
    await measure("bm25-only");
    const row = {
      chunks: size,
      vectorChannel: withVectors,
      postings: Number(postings?.n ?? 0),
      loadMs: Math.round(loadMs),
      bm25Only: await measure("bm25-only"),
      withoutRerank: await measure("no-rerank"),
      withRerank: await measure("rerank"),
    };
    results.push(row);
    process.stdout.write(
      `${size} chunks: bm25-only p50 ${row.bm25Only.p50.toFixed(1)} ms; pipeline without rerank p50 ${row.withoutRerank.p50.toFixed(1)} / p95 ${row.withoutRerank.p95.toFixed(1)} / p99 ${row.withoutRerank.p99.toFixed(1)} ms, ${row.withoutRerank.qps.toFixed(1)} QPS; with rerank p50 ${row.withRerank.p50.toFixed(1)} ms (rerank stage p50 ${(row.withRerank.stageP50.rerank ?? 0).toFixed(1)} ms)\n`,
    );
  }
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
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await core.stop();
}
