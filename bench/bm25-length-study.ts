/**
 * `npm run bench:bm25-length -- [chunks]` (ADR 0440): BM25's length normalisation on the synthetic
 * corpus of bench:growth, outside the product — a plain analyser (lower case, a short German stop
 * list, crude suffix stripping) and Okapi BM25 over `chunks` chunks (default 100,000) — hit@10/25/100
 * of the xquad_de question's own paragraph for k1 and b settings. Reproduces the product's BM25
 * channel at b = 0.75 (0.384 vs 0.388 at 100k) and shows what b alone does. Prints; writes nothing.
 */
import { join } from "node:path";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";

const evalDir = "../shared/eval";
const N = Number(process.argv[2] ?? 100_000);
const dataset = await readEvalDataset(join(evalDir, "xquad_de"));
const paragraphIndex = new Map(dataset.documents.map((d, i) => [d.id, i]));
const questions = sampleQueries(dataset.queries, 250, "growth").map((q) => ({
  text: q.text,
  paragraph: paragraphIndex.get([...q.relevant][0] ?? "") ?? -1,
}));
const corpus = await loadSyntheticCorpus(evalDir);
const STOP = new Set(
  "der die das und in zu den von mit ist im des dem nicht ein eine als auch es an er sie wird auf für ist sich bei wurde aus war wie was wer wo wann welche welcher welches hat nach um oder einer eines einem einen am zum zur durch über vor".split(
    " ",
  ),
);
const stem = (w: string) => w.replace(/(ern|em|en|er|es|e|n|s)$/u, "");
const analyze = (t: string) =>
  t
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
const postings = new Map<string, Map<number, number>>();
const lens = new Float64Array(N);
const docTerms: string[][] = [];
for (let i = 0; i < N; i++) {
  const toks = analyze(corpus.chunk(i));
  lens[i] = toks.length;
  for (const tk of toks) {
    const p = postings.get(tk) ?? new Map<number, number>();
    postings.set(tk, p);
    p.set(i, (p.get(i) ?? 0) + 1);
  }
  if (i < corpus.originalCount) docTerms.push(toks);
}
const avg = lens.reduce((a, b) => a + b, 0) / N;
console.log(
  "avgdl",
  avg.toFixed(1),
  "orig avg",
  (docTerms.reduce((a, d) => a + d.length, 0) / docTerms.length).toFixed(1),
);
type Scorer = (q: string[]) => Map<number, number>;
const bm25 =
  (k1: number, b: number): Scorer =>
  (q) => {
    const s = new Map<number, number>();
    for (const t of new Set(q)) {
      const p = postings.get(t);
      if (!p) continue;
      const idf = Math.log(1 + (N - p.size + 0.5) / (p.size + 0.5));
      for (const [d, tf] of p)
        s.set(
          d,
          (s.get(d) ?? 0) + (idf * ((k1 + 1) * tf)) / (tf + k1 * (1 - b + (b * (lens[d] ?? 0)) / avg)),
        );
    }
    return s;
  };
const hit = (sc: Scorer, k = 10) => {
  let h = 0;
  for (const q of questions) {
    const s = sc(analyze(q.text));
    const mine = s.get(q.paragraph) ?? -1;
    let better = 0;
    for (const v of s.values()) if (v > mine) better++;
    if (mine > 0 && better < k) h++;
  }
  return (h / questions.length).toFixed(3);
};
for (const [k1, b] of [
  [1.2, 0.75],
  [0.9, 0.4],
  [1.2, 0.4],
  [1.2, 0.3],
  [1.2, 0.2],
] as const)
  console.log(
    `k1=${k1} b=${b}`,
    "bm25@10",
    hit(bm25(k1, b)),
    "@25",
    hit(bm25(k1, b), 25),
    "@100",
    hit(bm25(k1, b), 100),
  );
