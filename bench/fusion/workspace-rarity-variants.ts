import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import {
  createTokenMatcher,
  type RerankFeatures,
  rerankFeatures,
} from "../../core/models/builtin/rerank-features.js";
import { analyzeRerankQuery, type QueryWord } from "../../core/models/builtin/rerank-query.js";
import { stemsOf } from "../../core/models/builtin/stem-like-index.js";
import { tokenizeWords } from "../../core/models/builtin/tokenize-words.js";
import { workspaceRarity } from "../../core/models/builtin/workspace-rarity.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { loadThesaurus } from "../../core/models/thesaurus/load-thesaurus.js";
import { DEFAULT_RECALL_TUNING } from "../../core/recall/recall-deps.js";
import { rerankContribution } from "../../core/recall/rerank/add-rerank-scores.js";
import { headNdcg, printVariantTable, recordedSets, replayHead } from "./variant-table.js";

const DEPTH = 20;
/** Not weighed below REPEAT_FROM chunks, where every evaluation workspace is. */
const SKIPPED = new Set(["repeat"] as const);

/** A word's weight from its dictionary weight and its workspace rarity. */
type Weigh = (dictionary: number, rarity: number) => number;
/** The lexical score from the features (coverage alone before ADR 0640). */
type Combine = (f: RerankFeatures) => number;
const coverage: Combine = (f) => f.coverage;
const byRarity: Weigh = (d, r) => d * r;
const VARIANTS: Record<string, { weigh: Weigh; combine: Combine }> = {
  "dictionary idf (before)": { weigh: (d) => d, combine: coverage },
  "dictionary × rarity": { weigh: byRarity, combine: coverage },
  "dictionary × rarity^1.5": { weigh: (d, r) => d * r ** 1.5, combine: coverage },
  "dictionary × rarity^2": { weigh: (d, r) => d * r ** 2, combine: coverage },
  "√dictionary × rarity": { weigh: (d, r) => Math.sqrt(d) * r, combine: coverage },
  "rarity alone": { weigh: (_d, r) => r, combine: coverage },
  "× rarity + 0.2 phrase": { weigh: byRarity, combine: (f) => f.coverage + 0.2 * f.phrase },
  "× rarity + 0.5 phrase (taken)": { weigh: byRarity, combine: (f) => f.coverage + 0.5 * f.phrase },
  "× rarity + 0.8 phrase": { weigh: byRarity, combine: (f) => f.coverage + 0.8 * f.phrase },
  "× rarity + 0.2 proximity": { weigh: byRarity, combine: (f) => f.coverage + 0.2 * f.proximity },
  "× rarity + 0.5 proximity": { weigh: byRarity, combine: (f) => f.coverage + 0.5 * f.proximity },
  "dictionary × min(1, rarity / 0.3)": { weigh: (d, r) => d * Math.min(1, r / 0.3), combine: coverage },
  "dictionary × min(1, rarity / 0.4)": { weigh: (d, r) => d * Math.min(1, r / 0.4), combine: coverage },
  "dictionary × min(1, rarity / 0.5)": { weigh: (d, r) => d * Math.min(1, r / 0.5), combine: coverage },
  "dictionary × min(1, rarity / 0.6)": { weigh: (d, r) => d * Math.min(1, r / 0.6), combine: coverage },
};
const BASELINE = "dictionary idf (before)";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "eval-dir": { type: "string", default: "../shared/eval" } },
});
const dir = positionals[0] ?? ".tmp/fusion-channels";
const { lexicon } = await loadLexicon({ cacheDirectory: join(tmpdir(), "memory-service-lexicon-cache") });
const { thesaurus } = await loadThesaurus();
const reranker = createBuiltinReranker({ lexicon, thesaurus });
const indexStem = (word: string) => stemsOf(word)[0];

const results = new Map<string, Map<string, number>>();
for await (const { set, dataset, textOf } of recordedSets(dir, values["eval-dir"])) {
  // Per query group (one workspace each in the eval): stem → how many documents hold it.
  const frequencies = new Map<string, Map<string, number>>();
  const sizes = new Map<string, number>();
  for (const d of dataset.documents) {
    sizes.set(d.group, (sizes.get(d.group) ?? 0) + 1);
    const counts = frequencies.get(d.group) ?? new Map<string, number>();
    frequencies.set(d.group, counts);
    for (const stem of new Set(tokenizeWords(d.text).map(indexStem)))
      counts.set(stem, (counts.get(stem) ?? 0) + 1);
  }
  const groupOf = new Map(dataset.queries.map((q) => [q.id, q.group]));
  const totals = new Map<string, number>();
  for (const q of set.queries) {
    const { alpha, head, tail, docOf, texts, candidates } = replayHead(q, textOf, DEPTH);
    const best = (await reranker.scoreBestSentences?.(q.text ?? "", candidates)) ?? [];
    const words = analyzeRerankQuery(q.text ?? "", lexicon, thesaurus);
    const group = groupOf.get(q.id) ?? "";
    const chunks = sizes.get(group) ?? 0;
    const rarity = words.map((w) =>
      workspaceRarity(frequencies.get(group)?.get(indexStem(w.word)) ?? 0, chunks),
    );
    const match = createTokenMatcher(words);
    const now = new Date();
    for (const [name, { weigh, combine }] of Object.entries(VARIANTS)) {
      const weighed: QueryWord[] = words.map((w, i) => ({ ...w, weight: weigh(w.weight, rarity[i] ?? 1) }));
      const lexical = texts.map((text) =>
        combine(rerankFeatures(weighed, { title: "", text }, now, match, SKIPPED)),
      );
      const lift = rerankContribution(lexical, DEFAULT_RECALL_TUNING.rerankScoreWeight);
      const sentenceWeight = DEFAULT_RECALL_TUNING.bestSentenceWeight * (1 - alpha);
      const scores = head.map((m, i) => m.score + (lift[i] ?? 0) + sentenceWeight * (best[i] ?? 0));
      const ndcg = headNdcg(head, scores, tail, docOf, q.relevant);
      totals.set(name, (totals.get(name) ?? 0) + ndcg);
    }
  }
  results.set(
    set.dataset,
    new Map([...totals].map(([name, total]) => [name, total / Math.max(1, set.queries.length)])),
  );
}

printVariantTable(results, Object.keys(VARIANTS), BASELINE);
