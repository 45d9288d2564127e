/**
 * Does the in-process BM25 index (ADR 0230) rank exactly as the SQL scorer on the eval sets?
 *
 *   npx tsx bench/bm25-index-parity.ts [--eval-dir ../shared/eval] [--limit 100] [--dataset name…]
 *
 * Ingests each set as `npm run eval` does, then runs every sampled query's full-text channel twice in
 * one snapshot — once from the index, once from the SQL scorer (search-bm25.ts) — with the service's lexicon and depth
 * (50), and compares the hits: identical (ids, order, scores within 1e-9), or different only inside
 * groups of equal scores (ties, ordered by chunk id up to the last bits of the sums), or different.
 * Eval runs write new chunk ids every time, so two eval runs can differ where ties are broken by id.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { searchFulltext } from "../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../core/store/with-tenant-snapshot.js";
import { ingestEvalDataset } from "./eval/ingest-eval-dataset.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { startEvalCore } from "./eval/start-eval-core.js";

const { values } = parseArgs({
  options: {
    "eval-dir": { type: "string", default: "../shared/eval" },
    dataset: { type: "string", multiple: true },
    limit: { type: "string", default: "100" },
    seed: { type: "string", default: "eval" },
    "lexicon-cache": {
      type: "string",
      default: join(process.env.TMPDIR ?? "/tmp", "memory-service-lexicon-cache"),
    },
    out: { type: "string", default: "bench/results/bm25-index-parity.json" },
  },
});

const core = await startEvalCore({ lexiconCache: values["lexicon-cache"], worker: false, reranker: "none" });
const index = core.bm25Index;
if (index === undefined) throw new Error("eval core runs without the in-process index");
const names = values.dataset ?? [
  "covidfaq_de",
  "covidfaq_en",
  "covidqa_en",
  "tatoeba_de2en",
  "tatoeba_en2de",
  "xquad_de",
  "xquad_de2en",
  "xquad_en",
  "xquad_en2de",
];

type Hit = { chunkId: string; score: number };
const key = (hits: readonly Hit[]) =>
  hits
    .map((h) => ({ s: h.score.toPrecision(9), id: h.chunkId }))
    .sort((a, b) => Number(b.s) - Number(a.s) || (a.id < b.id ? -1 : 1));

function compare(a: readonly Hit[], b: readonly Hit[]): "identical" | "ties" | "different" {
  const sameScores =
    a.length === b.length &&
    a.every((h, i) => Math.abs(h.score - (b[i]?.score ?? Number.NaN)) <= 1e-9 * Math.max(1, h.score));
  if (sameScores && a.every((h, i) => h.chunkId === b[i]?.chunkId)) return "identical";
  if (!sameScores) return "different";
  // Same score sequence: the sets must agree outside the tie group cut at the end.
  const last = a[a.length - 1]?.score.toPrecision(9);
  const trim = (hits: readonly Hit[]) =>
    key(hits)
      .filter((h) => h.s !== last)
      .map((h) => `${h.s}|${h.id}`)
      .join(",");
  return trim(a) === trim(b) ? "ties" : "different";
}

const results: Record<string, unknown>[] = [];
try {
  for (const name of names) {
    const dataset = await readEvalDataset(resolve(values["eval-dir"], name));
    const queries = sampleQueries(dataset.queries, Number(values.limit), values.seed);
    const ingested = await ingestEvalDataset(core, dataset);
    await index.idle();
    const counts = { identical: 0, ties: 0, different: 0, indexAnswered: 0 };
    for (const query of queries) {
      const tenantId = ingested.tenants.get(query.group)?.tenantId;
      if (tenantId === undefined) continue;
      await withTenantSnapshot(core.storage.db, tenantId, async (tx) => {
        const options = { query: query.text, depth: 50, lexicon: core.lexicon };
        const fromSql = await searchFulltext(tx, tenantId, options);
        const fromIndex = await searchFulltext(tx, tenantId, { ...options, index });
        if (fromIndex.path.startsWith("index")) counts.indexAnswered++;
        counts[compare(fromIndex.hits, fromSql.hits)]++;
      });
    }
    const row = { dataset: name, queries: queries.length, chunks: ingested.chunks, ...counts };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    results.push(row);
  }
} finally {
  await mkdir(resolve(values.out, ".."), { recursive: true });
  await writeFile(values.out, `${JSON.stringify({ loadAverage: loadavg(), results }, null, 2)}\n`);
  await core.stop();
}
