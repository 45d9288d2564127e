/**
 * Embedder-only retrieval evaluation of the built-in embedder on ../shared/eval/* (issue 5, 2(c)):
 * embed every document (`text` only — the XQuAD titles give the answer away) and query, rank by brute-force
 * cosine within the query's group, and score nDCG@10, recall@1/5/10 and MRR@10. Also measures embedding
 * throughput and the lexicon's load time and memory. Writes bench/results/embedder-eval.json.
 *
 *   npx tsx bench/embedder-eval.ts [--dataset xquad_de2en]… [--variant final]… [--set name=json]…
 *                                  [--eval-dir DIR] [--dictionary-dir /usr/share/dictd] [--cache-dir DIR]
 *                                  [--out FILE]
 *
 * `--set stopwordWeight=0.3` overrides a setting in every selected variant (quick experiments).
 *
 * Variants are named settings of the embedder (see VARIANTS); docs/builtin-embedder.md records the scores.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { BuiltinEmbedderSettings } from "../core/models/builtin/builtin-embedder-settings.js";
import { createBuiltinEmbedderWithLexicon } from "../core/models/builtin/create-builtin-embedder.js";
import type { EmbeddingProvider } from "../core/models/embedding-provider.js";
import { createEmptyLexicon } from "../core/models/lexicon/create-lexicon.js";
import type { Lexicon } from "../core/models/lexicon/lexicon.js";
import { loadLexicon } from "../core/models/lexicon/load-lexicon.js";
import { loadThesaurus } from "../core/models/thesaurus/load-thesaurus.js";

const DATASETS = ["xquad_de", "xquad_en", "xquad_de2en", "xquad_en2de", "tatoeba_de2en", "tatoeba_en2de"];

interface Variant {
  readonly description: string;
  readonly useLexicon: boolean;
  readonly settings: Partial<BuiltinEmbedderSettings>;
}

/** The final embedder and its ablations; experiments add rows here and run with `--variant`. */
const VARIANTS: Readonly<Record<string, Variant>> = {
  final: { description: "defaults (the shipped embedder)", useLexicon: true, settings: {} },
  "no-translation": {
    description:
      "same, without dictionary translation features (lexicon still gives idf and compound splits)",
    useLexicon: true,
    settings: { queryTranslationWeight: 0, passageTranslationWeight: 0 },
  },
  "no-translation-shared": {
    description:
      "no translation features, both languages share all 1024 dimensions (best monolingual layout)",
    useLexicon: true,
    settings: { queryTranslationWeight: 0, passageTranslationWeight: 0, languageBlocks: false },
  },
  "no-lexicon": {
    description: "no dictionary at all (the embedder then shares all dimensions)",
    useLexicon: false,
    settings: {},
  },
};

interface Document {
  readonly id: string;
  readonly text: string;
  readonly group: string;
}

interface Query {
  readonly id: string;
  readonly text: string;
  readonly relevant: ReadonlySet<string>;
  readonly group: string;
}

function parseJsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const asString = (value: unknown): string => (typeof value === "string" ? value : "");

async function readDataset(directory: string): Promise<{ documents: Document[]; queries: Query[] }> {
  const corpus = parseJsonLines(await readFile(join(directory, "corpus.jsonl"), "utf8"));
  const queries = parseJsonLines(await readFile(join(directory, "queries.jsonl"), "utf8"));
  return {
    documents: corpus.map((row) => ({
      id: asString(row.id),
      text: asString(row.text),
      group: asString(row.group),
    })),
    queries: queries.map((row) => ({
      id: asString(row.id),
      text: asString(row.text),
      relevant: new Set(Array.isArray(row.relevant_ids) ? row.relevant_ids.map(asString) : []),
      group: asString(row.group),
    })),
  };
}

interface Metrics {
  ndcg10: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr10: number;
}

/** Binary-relevance metrics of one ranking (ids best first). */
function scoreRanking(ranking: readonly string[], relevant: ReadonlySet<string>): Metrics {
  const recallAt = (k: number) => ranking.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
  let dcg = 0;
  let reciprocalRank = 0;
  ranking.slice(0, 10).forEach((id, rank) => {
    if (!relevant.has(id)) return;
    dcg += 1 / Math.log2(rank + 2);
    if (reciprocalRank === 0) reciprocalRank = 1 / (rank + 1);
  });
  let idealDcg = 0;
  for (let rank = 0; rank < Math.min(10, relevant.size); rank++) idealDcg += 1 / Math.log2(rank + 2);
  return {
    ndcg10: dcg / idealDcg,
    recall1: recallAt(1),
    recall5: recallAt(5),
    recall10: recallAt(10),
    mrr10: reciprocalRank,
  };
}

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

interface SetResult extends Metrics {
  queries: number;
  documents: number;
  embedMs: number;
  textsPerSecond: number;
  msPerKilobyte: number;
}

async function evaluateSet(embedder: EmbeddingProvider, directory: string): Promise<SetResult> {
  const { documents, queries } = await readDataset(directory);
  const started = performance.now();
  const documentVectors = await embedder.embed(
    documents.map((document) => document.text),
    "passage",
  );
  const queryVectors = await embedder.embed(
    queries.map((query) => query.text),
    "query",
  );
  const embedMs = performance.now() - started;
  const kilobytes =
    [...documents, ...queries].reduce((sum, item) => sum + Buffer.byteLength(item.text, "utf8"), 0) / 1024;
  const totals: Metrics = { ndcg10: 0, recall1: 0, recall5: 0, recall10: 0, mrr10: 0 };
  queries.forEach((query, queryIndex) => {
    const queryVector = queryVectors[queryIndex];
    if (queryVector === undefined || query.relevant.size === 0) return;
    const scored: Array<{ id: string; score: number }> = [];
    documents.forEach((document, documentIndex) => {
      const documentVector = documentVectors[documentIndex];
      // Each group is one user's memory: a query only searches its own group.
      if (documentVector !== undefined && document.group === query.group) {
        scored.push({ id: document.id, score: dot(queryVector, documentVector) });
      }
    });
    // Ties broken by id, so the ranking is deterministic.
    scored.sort((left, right) => right.score - left.score || (left.id < right.id ? -1 : 1));
    const metrics = scoreRanking(
      scored.slice(0, 10).map(({ id }) => id),
      query.relevant,
    );
    for (const key of Object.keys(totals) as Array<keyof Metrics>) totals[key] += metrics[key];
  });
  const count = queries.filter((query) => query.relevant.size > 0).length;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    ndcg10: round(totals.ndcg10 / count),
    recall1: round(totals.recall1 / count),
    recall5: round(totals.recall5 / count),
    recall10: round(totals.recall10 / count),
    mrr10: round(totals.mrr10 / count),
    queries: count,
    documents: documents.length,
    embedMs: Math.round(embedMs),
    textsPerSecond: Math.round((documents.length + queries.length) / (embedMs / 1000)),
    msPerKilobyte: round(embedMs / kilobytes),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: "string", multiple: true },
      variant: { type: "string", multiple: true },
      set: { type: "string", multiple: true },
      "eval-dir": { type: "string", default: join(import.meta.dirname, "../../shared/eval") },
      "dictionary-dir": { type: "string" },
      "cache-dir": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
      "no-thesaurus": { type: "boolean", default: false },
      out: { type: "string", default: join(import.meta.dirname, "results/embedder-eval.json") },
    },
  });
  const datasets = values.dataset ?? DATASETS;
  const overrides: Record<string, unknown> = {};
  for (const assignment of values.set ?? []) {
    const [name, value] = assignment.split("=", 2);
    if (name === undefined || value === undefined)
      throw new Error(`--set wants name=json, got ${assignment}`);
    overrides[name] = JSON.parse(value);
  }
  const variantNames = values.variant ?? Object.keys(VARIANTS);
  const rssBefore = process.memoryUsage().rss;
  const loaded = await loadLexicon({
    ...(values["dictionary-dir"] !== undefined ? { dictionaryDirectory: values["dictionary-dir"] } : {}),
    cacheDirectory: values["cache-dir"],
  });
  const lexiconInfo = {
    source: loaded.source,
    loadMs: loaded.loadMs,
    rssGrowthMb: Math.round((process.memoryUsage().rss - rssBefore) / 1e6),
    headwords: loaded.lexicon.headwordCount,
    warning: loaded.warning ?? null,
  };
  console.log(`lexicon: ${JSON.stringify(lexiconInfo)}`);
  const loadedThesaurus = await loadThesaurus();
  console.log(`thesaurus: ${loadedThesaurus.thesaurus.sources.map((source) => source.path).join(", ")}`);
  const results: Record<string, Record<string, SetResult>> = {};
  for (const name of variantNames) {
    const variant = VARIANTS[name];
    if (variant === undefined)
      throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(", ")}`);
    const lexicon: Lexicon = variant.useLexicon ? loaded.lexicon : createEmptyLexicon();
    const embedder = createBuiltinEmbedderWithLexicon(
      lexicon,
      { ...variant.settings, ...overrides },
      values["no-thesaurus"] ? undefined : loadedThesaurus.thesaurus,
    );
    results[name] = {};
    for (const dataset of datasets) {
      const result = await evaluateSet(embedder, join(values["eval-dir"], dataset));
      results[name][dataset] = result;
      console.log(
        `${name.padEnd(18)} ${dataset.padEnd(14)} nDCG@10 ${result.ndcg10.toFixed(3)}  R@1 ${result.recall1.toFixed(3)}  R@5 ${result.recall5.toFixed(3)}  R@10 ${result.recall10.toFixed(3)}  MRR@10 ${result.mrr10.toFixed(3)}  ${result.textsPerSecond} texts/s  ${result.msPerKilobyte} ms/KB`,
      );
    }
  }
  const report = {
    createdAt: new Date().toISOString(),
    embedder: createBuiltinEmbedderWithLexicon(loaded.lexicon).id,
    lexicon: lexiconInfo,
    variants: Object.fromEntries(variantNames.map((name) => [name, VARIANTS[name]])),
    overrides,
    results,
  };
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${values.out}`);
}

await main();
