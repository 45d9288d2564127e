/**
 * What matching passages' compounds by their parts (ADR 0660) costs the built-in reranker: 20
 * candidates a query, as recall's head, from a German corpus, with and without the splitter, cold
 * (a new reranker: every passage word split for the first time) and warm (the same queries again).
 *
 *   npx tsx bench/rerank-compound-cost.ts [--set ../shared/eval/xquad_en2de] [--queries 200]
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createBuiltinReranker } from "../core/models/builtin/create-builtin-reranker.js";
import { loadLexicon } from "../core/models/lexicon/load-lexicon.js";
import { loadThesaurus } from "../core/models/thesaurus/load-thesaurus.js";

const { values } = parseArgs({
  options: {
    set: { type: "string", default: "../shared/eval/xquad_en2de" },
    queries: { type: "string", default: "200" },
  },
});
const lines = (file: string) => readFileSync(join(values.set, file), "utf8").trim().split("\n");
const corpus = lines("corpus.jsonl").map((line) => JSON.parse(line) as { id: string; text: string });
const queries = lines("queries.jsonl")
  .slice(0, Number(values.queries))
  .map((line) => JSON.parse(line) as { text: string });
const { lexicon } = await loadLexicon({ cacheDirectory: join(tmpdir(), "memory-service-lexicon-cache") });
const { thesaurus } = await loadThesaurus();
// A fixed head per query: 20 passages spread over the corpus.
const heads = queries.map((_, q) =>
  Array.from({ length: 20 }, (_, i) => {
    const doc = corpus[(q * 7 + i * 13) % corpus.length] as { id: string; text: string };
    return { id: doc.id, title: "", text: doc.text };
  }),
);

async function time(splitCompounds: boolean) {
  const reranker = createBuiltinReranker({ lexicon, thesaurus, splitCompounds });
  const pass = async () => {
    const started = performance.now();
    for (const [q, query] of queries.entries()) await reranker.rerank(query.text, heads[q] ?? []);
    return (performance.now() - started) / queries.length;
  };
  const cold = await pass();
  const warm = [await pass(), await pass(), await pass()].sort((a, b) => a - b)[1] ?? 0;
  return { splitCompounds, coldMsPerQuery: +cold.toFixed(3), warmMsPerQuery: +warm.toFixed(3) };
}

const results = [];
for (const split of [false, true, false, true]) results.push(await time(split));
console.log(JSON.stringify({ set: values.set, queries: queries.length, head: 20, results }, null, 2));
