/**
 * How the two first-stage channels should be fused, and whether the reranker earns its place
 * (docs/recall.md "Fusion"):
 *
 *   npm run bench:fusion -- --all [--limit 400] [--dump-dir .tmp/fusion-channels]   record, then compare
 *   npm run bench:fusion -- --from .tmp/fusion-channels                              compare recorded runs
 *
 * Recording ingests each set through the real ingest path and keeps, per query, both channels' memory
 * rankings with their BM25 scores and cosine distances and the reranker's score of every candidate
 * (bench/fusion/record-channels.ts). The comparison then runs every fusion variant offline with the
 * production code and scores nDCG@10 per set, fused and fused + rerank, split into the sets the
 * variants were fitted on and the sets held out (bench/fusion/fusion-variants.ts). Writes
 * bench/results/fusion-study.json.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { startEvalCore } from "./eval/start-eval-core.js";
import { compareVariants, TUNE_SETS } from "./fusion/compare-variants.js";
import { type RecordedSet, recordChannels } from "./fusion/record-channels.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", multiple: true },
    all: { type: "boolean", default: false },
    "eval-dir": { type: "string", default: "../shared/eval" },
    limit: { type: "string" },
    seed: { type: "string", default: "eval" },
    from: { type: "string" },
    "dump-dir": { type: "string", default: ".tmp/fusion-channels" },
    "database-url": { type: "string" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
  },
});

async function record(): Promise<RecordedSet[]> {
  const dirs = [...(values.dataset ?? [])];
  if (values.all) {
    const root = resolve(values["eval-dir"]);
    for (const name of (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()))
      dirs.push(join(root, name.name));
  }
  const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
  const core = await startEvalCore({
    databaseUrl: values["database-url"],
    lexiconCache: values["lexicon-cache"],
  });
  const sets: RecordedSet[] = [];
  try {
    await mkdir(values["dump-dir"], { recursive: true });
    for (const dir of dirs.sort()) {
      const dataset = await readEvalDataset(resolve(dir));
      const queries = sampleQueries(dataset.queries, limit, values.seed);
      process.stderr.write(`${dataset.name}: recording ${queries.length} queries…\n`);
      const set = await recordChannels(core, dataset, queries);
      await writeFile(join(values["dump-dir"], `${set.dataset}.json`), JSON.stringify(set));
      sets.push(set);
    }
  } finally {
    await core.stop();
  }
  return sets;
}

async function load(dir: string): Promise<RecordedSet[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), "utf8")) as RecordedSet));
}

const sets = values.from !== undefined ? await load(values.from) : await record();
const comparison = compareVariants(sets);
process.stdout.write(comparison.text);
writeBenchResult("fusion-study", {
  metric: "nDCG@10",
  tuneSets: TUNE_SETS,
  queries: Object.fromEntries(sets.map((s) => [s.dataset, s.queries.length])),
  results: comparison.results,
});
