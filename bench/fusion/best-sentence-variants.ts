import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { splitSentences } from "../../core/models/builtin/best-sentence-similarity.js";
import { createBuiltinEmbedderWithLexicon } from "../../core/models/builtin/create-builtin-embedder.js";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { loadThesaurus } from "../../core/models/thesaurus/load-thesaurus.js";
import { rerankContribution } from "../../core/recall/rerank/add-rerank-scores.js";
import { headNdcg, printVariantTable, recordedSets, replayHead } from "./variant-table.js";

const DEPTH = 20;

interface Head {
  readonly fused: readonly number[];
  readonly rerank: readonly number[];
  /** Best-sentence cosine (production scorer), and the same from the embedder's hashed vectors. */
  readonly best: readonly number[];
  readonly hashed: readonly number[];
  /** The vector term's cosine as fused (the weakest vector hit's for candidates it did not return). */
  readonly vector: readonly number[];
  readonly sentences: readonly number[];
  readonly alpha: number;
}

type Variant = (h: Head) => number[];

const lifted = (h: Head, extra: (i: number) => number): number[] => {
  const lift = rerankContribution(h.rerank, 0.15);
  return h.fused.map((f, i) => f + (lift[i] ?? 0) + extra(i));
};
const at = (xs: readonly number[], i: number) => xs[i] ?? 0;

const VARIANTS: Record<string, Variant> = {
  today: (h) => lifted(h, () => 0),
};
for (const w of [0.6, 0.8, 1, 1.2]) {
  VARIANTS[`+${w}(1−α)·best`] = (h) => lifted(h, (i) => w * (1 - h.alpha) * at(h.best, i));
}
VARIANTS["+0.3·hashed best"] = (h) => lifted(h, (i) => 0.3 * at(h.hashed, i));
VARIANTS["+0.8(1−α)·(best − vector): replace"] = (h) =>
  lifted(h, (i) => 0.8 * (1 - h.alpha) * (at(h.best, i) - at(h.vector, i)));
VARIANTS["+1(1−α)·max(0, best − vector), ≥ 2 sentences"] = (h) =>
  lifted(h, (i) =>
    at(h.sentences, i) >= 2 ? (1 - h.alpha) * Math.max(0, at(h.best, i) - at(h.vector, i)) : 0,
  );

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "eval-dir": { type: "string", default: "../shared/eval" } },
});
const dir = positionals[0] ?? ".tmp/fusion-channels";
const loaded = await loadLexicon({ cacheDirectory: join(tmpdir(), "memory-service-lexicon-cache") });
const { thesaurus } = await loadThesaurus();
const reranker = createBuiltinReranker({ lexicon: loaded.lexicon, thesaurus });
const embedder = createBuiltinEmbedderWithLexicon(loaded.lexicon, {}, thesaurus);
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

const results = new Map<string, Map<string, number>>();
for await (const { set, textOf } of recordedSets(dir, values["eval-dir"])) {
  const hashedOf = new Map<string, Float32Array[]>();
  const totals = new Map<string, number>();
  const queryVectors = await embedder.embed(
    set.queries.map((q) => q.text ?? ""),
    "query",
  );
  for (const [index, q] of set.queries.entries()) {
    const { alpha, head, tail, docOf, texts, candidates } = replayHead(q, textOf, DEPTH);
    const queryVector = queryVectors[index] ?? new Float32Array();
    const hashed: number[] = [];
    for (const text of texts) {
      let vectors = hashedOf.get(text);
      if (vectors === undefined) {
        vectors = await embedder.embed(splitSentences(text), "passage");
        hashedOf.set(text, vectors);
      }
      hashed.push(Math.max(0, ...vectors.map((v) => dot(queryVector, v))));
    }
    const cosines = new Map<string, number>();
    for (const h of q.vector) if (!cosines.has(h.memoryId)) cosines.set(h.memoryId, Math.max(0, 1 - h.value));
    const weakest = cosines.size > 0 ? Math.min(...cosines.values()) : 0;
    const h: Head = {
      fused: head.map((m) => m.score),
      rerank: head.map((m) => q.rerank[m.memoryId] ?? 0),
      best: (await reranker.scoreBestSentences?.(q.text ?? "", candidates)) ?? [],
      hashed,
      vector: head.map((m) => cosines.get(m.memoryId) ?? weakest),
      sentences: texts.map((text) => splitSentences(text).length),
      alpha,
    };
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const scores = head.length > 1 ? variant(h) : h.fused;
      const ndcg = headNdcg(head, scores, tail, docOf, q.relevant);
      totals.set(name, (totals.get(name) ?? 0) + ndcg);
    }
  }
  results.set(
    set.dataset,
    new Map([...totals].map(([name, total]) => [name, total / Math.max(1, set.queries.length)])),
  );
}

printVariantTable(results, Object.keys(VARIANTS), "today");
