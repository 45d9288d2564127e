import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { loadModelTokenizer } from "../../core/models/onnx/load-model-tokenizer.js";
import { ProviderError } from "../../core/models/provider-error.js";
import { CLS_ID, createTinyModel, SEP_ID, tokenizerJson, UNK_ID } from "../helpers/onnx-models.js";

const model = createTinyModel();
const id = (token: string) => model.vocab.get(token) ?? -1;

let dir = "";
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "model-tokenizer-"));
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson(model)));
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify({ pad_token: { content: "[PAD]" } }));
});
test.after.always(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("encode adds [CLS] … [SEP], maps unknown words to [UNK], and truncates keeping [SEP]", async (t) => {
  const tokenizer = await loadModelTokenizer(dir, "test");
  t.deepEqual(tokenizer.encode("Die Katze xyz", 512).ids, [CLS_ID, id("die"), id("katze"), UNK_ID, SEP_ID]);
  t.deepEqual(tokenizer.encode("die katze schläft auf dem sofa", 4).ids, [
    CLS_ID,
    id("die"),
    id("katze"),
    SEP_ID,
  ]);
  t.deepEqual(tokenizer.encode("", 8).ids, [CLS_ID, SEP_ID]);
  t.throws(() => tokenizer.encode("x", 2), { instanceOf: RangeError });
  t.is(tokenizer.padId, 0);
});

test("pairs carry segment ids and are truncated longest side first", async (t) => {
  const tokenizer = await loadModelTokenizer(dir, "test");
  const full = tokenizer.encodePair("the cat", "der hund bellt", 512);
  t.deepEqual(full.ids, [CLS_ID, id("the"), id("cat"), SEP_ID, id("der"), id("hund"), id("bellt"), SEP_ID]);
  t.deepEqual(full.typeIds, [0, 0, 0, 0, 1, 1, 1, 1]);
  const cut = tokenizer.encodePair("the cat", "die katze schläft auf dem sofa im garten", 8);
  t.deepEqual(cut.ids, [CLS_ID, id("the"), id("cat"), SEP_ID, id("die"), id("katze"), id("schläft"), SEP_ID]);
  const even = tokenizer.encodePair("die katze schläft auf", "der hund bellt im", 7);
  t.deepEqual(even.ids, [CLS_ID, id("die"), id("katze"), SEP_ID, id("der"), id("hund"), SEP_ID]);
});

test("countTokens counts WordPiece pieces without special tokens", async (t) => {
  const tokenizer = await loadModelTokenizer(dir, "test");
  t.is(tokenizer.countTokens("Datenschutzbeauftragter, Katzen!"), 7); // daten ##schutz ##beauftragter , katze ##n !
});

test("a directory without tokenizer.json or with a broken one is refused as model_invalid", async (t) => {
  const empty = join(dir, "empty");
  await mkdir(empty, { recursive: true });
  const missing = await t.throwsAsync(loadModelTokenizer(empty, "test"), { instanceOf: ProviderError });
  t.is(missing?.reason, "model_invalid");
  const broken = join(dir, "broken");
  await mkdir(broken, { recursive: true });
  await writeFile(join(broken, "tokenizer.json"), "{ not json");
  const invalid = await t.throwsAsync(loadModelTokenizer(broken, "test"), { instanceOf: ProviderError });
  t.is(invalid?.reason, "model_invalid");
});
