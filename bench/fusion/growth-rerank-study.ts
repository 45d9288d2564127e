/**
 * What the rerank stage should add as the workspace grows (issue 46 item 5, ADR 0550): replays the
 * channels `npm run bench:growth -- --dump-dir DIR` recorded at each size through the production
 * fusion, recomputes the built-in reranker's features for every candidate from the synthetic corpus's
 * text (bench/synthetic-corpus.ts is deterministic, so a memory's document names its text), and
 * scores hit@10 of the question's own paragraph for rerank variants over the best 20.
 *
 *   npx tsx bench/fusion/growth-rerank-study.ts .tmp/growth-s59
 *
 * "occurrences" orders the best 50 by how often they contain any of the query's words, which is what
 * PostgreSQL's ts_rank_cd computes for an OR of lexemes (every matched lexeme is a cover of its own:
 * 0.1 per occurrence, no idf, no length normalisation) — the plain recipe's full-text ranking.
 * Prints; writes nothing.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { REPEAT_FROM, repeatScale } from "../../core/models/builtin/create-builtin-reranker.js";
import { createTokenMatcher, rerankFeatures } from "../../core/models/builtin/rerank-features.js";
import { analyzeRerankQuery } from "../../core/models/builtin/rerank-query.js";
import { tokenizeWords } from "../../core/models/builtin/tokenize-words.js";
import { loadModels } from "../../core/models/load-models.js";
import { fuseCalibratedScores } from "../../core/recall/fuse/fuse-calibrated-scores.js";
import { rerankContribution } from "../../core/recall/rerank/add-rerank-scores.js";
import { readEvalDataset } from "../eval/read-eval-dataset.js";
import { loadSyntheticCorpus } from "../synthetic-corpus.js";
import { PRODUCTION_SHARE, shareOf } from "./compare-variants.js";
import type { RecordedSet } from "./record-channels.js";

const DEPTH = 20;
const WEIGHT = 0.15;
const evalDir = "../shared/eval";
const dir = process.argv[2] ?? ".tmp/growth-s59";

interface Candidate {
  readonly fused: number;
  readonly relevant: boolean;
  readonly coverage: number;
  readonly repeat: number;
  readonly proximity: number;
  readonly occurrences: number;
}

/** A variant: the candidates' order (best 20 reranked, or all of them for the diagnostic). */
type Variant = (c: readonly Candidate[], chunks: number) => { scores: number[]; depth: number };

const lifted = (c: readonly Candidate[], r: (x: Candidate) => number) => {
  const lift = rerankContribution(c.slice(0, DEPTH).map(r), WEIGHT);
  return { scores: c.map((x, i) => x.fused + (lift[i] ?? 0)), depth: DEPTH };
};

const VARIANTS: Record<string, Variant> = {
  "fused (no rerank)": (c) => ({ scores: c.map((x) => x.fused), depth: DEPTH }),
  "coverage (before)": (c) => lifted(c, (x) => x.coverage),
  "coverage + proximity": (c) => lifted(c, (x) => x.coverage + x.proximity),
  "coverage + 0.25 repeat": (c) => lifted(c, (x) => x.coverage + 0.25 * x.repeat),
  "coverage + 1 repeat": (c) => lifted(c, (x) => x.coverage + x.repeat),
  "coverage + 0.5 · scale · repeat (now)": (c, n) =>
    lifted(c, (x) => x.coverage + 0.5 * repeatScale(n) * x.repeat),
  "occurrences, best 50 (ts_rank_cd OR)": (c) => ({
    scores: c.map((x) => x.occurrences + x.fused * 1e-3),
    depth: 50,
  }),
};

const models = await loadModels(loadConfig(process.env), createLogger("warn"), { builtinWorkers: 0 });
const dataset = await readEvalDataset(join(evalDir, "xquad_de"));
const paragraph = new Map(dataset.documents.map((d, i) => [d.id, i]));
const corpus = await loadSyntheticCorpus(evalDir);
const textOf = (doc: string) =>
  corpus.chunk(
    doc.startsWith("synthetic-") ? Number(doc.slice("synthetic-".length)) : (paragraph.get(doc) ?? -1),
  );

const files = (await readdir(dir)).filter((f) => /^growth-\d+\.json$/u.test(f));
const sets = await Promise.all(
  files.map(async (f) => JSON.parse(await readFile(join(dir, f), "utf8")) as RecordedSet),
);
sets.sort((a, b) => (a.queries[0]?.chunkCount ?? 0) - (b.queries[0]?.chunkCount ?? 0));
process.stdout.write(
  `hit@10, ${dir}; repeat counts above ${REPEAT_FROM} chunks\n${"variant".padEnd(40)}${sets.map((s) => s.dataset.padStart(14)).join("")}\n`,
);
const rows = new Map<string, number[]>(Object.keys(VARIANTS).map((name) => [name, []]));
for (const set of sets) {
  const hits = new Map<string, number>();
  for (const q of set.queries) {
    const words = analyzeRerankQuery(q.text ?? "", models.lexicon, models.thesaurus);
    const match = createTokenMatcher(words);
    const doc = new Map([...q.fulltext, ...q.vector].map((h) => [h.memoryId, h.doc]));
    const fused = fuseCalibratedScores(
      q.fulltext.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, score: h.value })),
      q.maxScore,
      q.vector.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, distance: h.value })),
      shareOf(q, PRODUCTION_SHARE),
    );
    const candidates: Candidate[] = fused.map((m) => {
      const document = doc.get(m.memoryId) ?? m.memoryId;
      const text = textOf(document);
      const f = rerankFeatures(words, { title: "", text }, new Date(), match);
      return {
        fused: m.score,
        relevant: q.relevant.includes(document),
        coverage: f.coverage,
        repeat: f.repeat,
        proximity: f.proximity,
        occurrences: tokenizeWords(text).filter((w) => match(w) >= 0).length,
      };
    });
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const { scores, depth } = variant(candidates, q.chunkCount ?? 0);
      const head = candidates
        .slice(0, depth)
        .map((c, i) => ({ c, i, s: scores[i] ?? 0 }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .map((x) => x.c);
      const top = [...head, ...candidates.slice(depth)].slice(0, 10);
      hits.set(name, (hits.get(name) ?? 0) + (top.some((c) => c.relevant) ? 1 : 0));
    }
  }
  for (const [name, row] of rows) row.push((hits.get(name) ?? 0) / Math.max(1, set.queries.length));
}
for (const [name, row] of rows)
  process.stdout.write(`${name.padEnd(40)}${row.map((x) => x.toFixed(3).padStart(14)).join("")}\n`);
await models.close();
