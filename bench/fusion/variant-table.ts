import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { readEvalDataset } from "../eval/read-eval-dataset.js";
import { ndcgAt } from "../eval/retrieval-metrics.js";
import { calibratedFusion, PRODUCTION_SHARE, shareOf } from "./compare-variants.js";
import type { RecordedQuery, RecordedSet } from "./record-channels.js";

/**
 * nDCG@10 of a reranked head: the head's memories ordered by `scores` (ties keep the fused order),
 * then the tail as fused; `docOf` names the evaluation document of a memory.
 */
export function headNdcg(
  head: readonly { readonly memoryId: string }[],
  scores: readonly number[],
  tail: readonly string[],
  docOf: ReadonlyMap<string, string>,
  relevant: readonly string[],
): number {
  const order = head
    .map((m, i) => ({ id: m.memoryId, i, s: scores[i] ?? 0 }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.id);
  return ndcgAt(
    [...order, ...tail].map((id) => docOf.get(id) ?? id),
    new Set(relevant),
    10,
  );
}

/**
 * Prints variants × sets (mean nDCG@10 per set), then each variant's min and mean over the sets of
 * variant − `baseline`.
 */
export function printVariantTable(
  results: ReadonlyMap<string, ReadonlyMap<string, number>>,
  variants: readonly string[],
  baseline: string,
): void {
  const sets = [...results.keys()];
  const width = Math.max(7, ...variants.map((v) => v.length)) + 2;
  console.log(
    ["variant".padEnd(width), ...sets.map((s) => s.slice(0, 13).padStart(13)), "   min Δ", "  mean Δ"].join(
      " ",
    ),
  );
  for (const name of variants) {
    const score = (set: string, variant: string) => results.get(set)?.get(variant) ?? 0;
    const deltas = sets.map((s) => score(s, name) - score(s, baseline));
    console.log(
      [
        name.padEnd(width),
        ...sets.map((s) => score(s, name).toFixed(4).padStart(13)),
        Math.min(...deltas)
          .toFixed(4)
          .padStart(8),
        (deltas.reduce((a, b) => a + b, 0) / deltas.length).toFixed(4).padStart(8),
      ].join(" "),
    );
  }
}

/**
 * One recorded query's production head (calibrated fusion at the production share, the first `depth`
 * memories), the rest of the fused order, each memory's evaluation document and the head's texts.
 */
export function replayHead(q: RecordedQuery, textOf: ReadonlyMap<string, string>, depth: number) {
  const alpha = shareOf(q, PRODUCTION_SHARE);
  const fused = calibratedFusion(q, alpha);
  const head = fused.slice(0, depth);
  const tail = fused.slice(depth).map((m) => m.memoryId);
  const docOf = new Map([...q.fulltext, ...q.vector].map((h) => [h.memoryId, h.doc]));
  const texts = head.map((m) => textOf.get(docOf.get(m.memoryId) ?? "") ?? "");
  const candidates = texts.map((text, i) => ({ id: String(i), title: "", text }));
  return { alpha, head, tail, docOf, texts, candidates };
}

/** Each recorded set in `dir` (sorted by file name) with its evaluation dataset and document texts. */
export async function* recordedSets(dir: string, evalDir: string) {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  for (const file of files) {
    const set = JSON.parse(await readFile(join(dir, file), "utf8")) as RecordedSet;
    const dataset = await readEvalDataset(join(evalDir, set.dataset));
    const textOf = new Map(dataset.documents.map((d) => [d.id, d.text]));
    yield { set, dataset, textOf };
  }
}
