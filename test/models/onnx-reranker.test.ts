import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createOnnxReranker } from "../../core/models/onnx/create-onnx-reranker.js";
import type { RerankCandidate } from "../../core/models/reranker.js";
import {
  buildCrossEncoderModel,
  CLS_ID,
  createTinyModel,
  referenceCrossEncoderLogit,
  referenceIds,
  SEP_ID,
  writeModelDir,
} from "../helpers/onnx-models.js";

/** The ONNX cross-encoder against a tiny graph; expected scores are sigmoid(logit) computed in TypeScript. */

const model = createTinyModel(8, 3);
const QUERY = "die katze schläft";
const CANDIDATES: RerankCandidate[] = [
  { id: "a", title: "", text: "Der Hund bellt im Garten." },
  { id: "b", title: "", text: "Die Katze schläft auf dem Sofa." },
  { id: "c", title: "", text: "the weather is sunny today and the dog barks in the garden" },
  { id: "d", title: "", text: "rain" },
  { id: "e", title: "", text: "Steuer und Rechnung." },
];

let scratch = "";
test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "onnx-reranker-"));
});
test.after.always(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** [CLS] query [SEP] passage [SEP] with segment ids 0… then 1…, as the pair template writes them. */
function pair(query: string, passage: string, maxLength = 512) {
  const q = referenceIds(model, query).slice(1, -1);
  let p = referenceIds(model, passage).slice(1, -1);
  const budget = maxLength - 3;
  if (q.length + p.length > budget) p = p.slice(0, Math.max(0, budget - q.length));
  const ids = [CLS_ID, ...q, SEP_ID, ...p, SEP_ID];
  const typeIds = ids.map((_, i) => (i <= q.length + 1 ? 0 : 1));
  return { ids, typeIds };
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function expectedScore(passage: string, withTypes: boolean, maxLength = 512): number {
  const { ids, typeIds } = pair(QUERY, passage, maxLength);
  return sigmoid(referenceCrossEncoderLogit(model, ids, withTypes ? typeIds : undefined));
}

for (const withTypes of [false, true]) {
  test(`scores equal sigmoid of the TypeScript logit, in input order (token_type_ids ${withTypes ? "declared" : "absent"})`, async (t) => {
    const dir = join(scratch, `types-${withTypes}`);
    await writeModelDir(dir, model, buildCrossEncoderModel(model, { tokenTypeIds: withTypes }), {
      bare: true,
    });
    const reranker = await createOnnxReranker({ modelDir: dir, batchSize: 2 });
    const scores = await reranker.rerank(QUERY, CANDIDATES);
    t.is(scores.length, CANDIDATES.length);
    CANDIDATES.forEach((candidate, i) => {
      const expected = expectedScore(candidate.text, withTypes);
      t.true(
        Math.abs((scores[i] ?? Number.NaN) - expected) < 1e-5,
        `${candidate.id}: ${scores[i]} vs ${expected}`,
      );
    });
    const order = (values: readonly number[]) =>
      CANDIDATES.map((c, i) => ({ id: c.id, score: values[i] ?? 0 }))
        .sort((a, b) => b.score - a.score)
        .map((c) => c.id);
    t.deepEqual(order(scores), order(CANDIDATES.map((c) => expectedScore(c.text, withTypes))));
    if (withTypes)
      t.not(expectedScore(CANDIDATES[1]?.text ?? "", true), expectedScore(CANDIDATES[1]?.text ?? "", false));
    await reranker.close?.();
  });
}

test("a candidate's title is scored on the line before its text", async (t) => {
  const dir = join(scratch, "title");
  await writeModelDir(dir, model, buildCrossEncoderModel(model), { bare: true });
  const reranker = await createOnnxReranker({ modelDir: dir });
  const [withTitle] = await reranker.rerank(QUERY, [{ id: "x", title: "Steuer", text: "Der Hund bellt." }]);
  t.true(Math.abs((withTitle ?? 0) - expectedScore("Steuer Der Hund bellt.", false)) < 1e-5);
  await reranker.close?.();
});

test("long passages are truncated to maxLength, the query survives", async (t) => {
  const dir = join(scratch, "truncate");
  await writeModelDir(dir, model, buildCrossEncoderModel(model), { bare: true });
  const reranker = await createOnnxReranker({ modelDir: dir, maxLength: 10 });
  const long = "the dog barks in the garden and the weather is sunny today";
  const [score] = await reranker.rerank(QUERY, [{ id: "x", title: "", text: long }]);
  t.true(Math.abs((score ?? 0) - expectedScore(long, false, 10)) < 1e-5);
  t.deepEqual(await reranker.rerank(QUERY, []), []);
  await reranker.close?.();
});
