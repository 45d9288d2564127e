import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createCompoundSplitter } from "../../core/models/builtin/compound-splitter.js";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import { rerankFeatures } from "../../core/models/builtin/rerank-features.js";
import { analyzeRerankQuery } from "../../core/models/builtin/rerank-query.js";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { writeDictdFixture } from "../models/dictd-fixture.js";

// The built-in reranker matches a German passage's compounds by their parts (ADR 0660): an English
// question's words, translated, are separate German words; the passage writes them as one.

let directory: string;
let lexicon: Lexicon;
const now = new Date("2026-06-11T12:00:00Z");

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), "passage-compounds-"));
  await writeDictdFixture(directory, "freedict-deu-eng", [
    { headwords: ["geheim"], text: "geheim /ɡəˈhaɪm/ <adj>\nsecret <adj>\n" },
    { headwords: ["geheimnis"], text: "Geheimnis /ɡəˈhaɪmnɪs/ <neut, n, sg>\nsecret <n>\n" },
    { headwords: ["pfad"], text: "Pfad /pfaːt/ <masc, n, sg>\npath <n>\n" },
  ]);
  await writeDictdFixture(directory, "freedict-eng-deu", [
    { headwords: ["secret"], text: "secret /sˈiːkɹɪt/\ngeheim <adj>, Geheimnis <neut>\n" },
    { headwords: ["path"], text: "path /pˈɑːθ/\nPfad <masc>\n" },
  ]);
  ({ lexicon } = await loadLexicon({ dictionaryDirectory: directory }));
});

test.after.always(async () => {
  await rm(directory, { recursive: true, force: true });
});

const compound = { title: "", text: "Links liegt ein Geheimpfad." };
const oneWord = { title: "", text: "Er hütet ein Geheimnis." };

test("a compound's parts stand in for it: coverage and phrase order", (t) => {
  const query = analyzeRerankQuery("the secret path", lexicon);
  const split = createCompoundSplitter(lexicon);
  t.deepEqual(split("geheimpfad"), ["geheim", "pfad"]);
  t.is(split("links"), undefined);
  const whole = rerankFeatures(query, compound, now);
  const parts = rerankFeatures(query, compound, now, undefined, undefined, split);
  t.is(whole.coverage, 0);
  t.is(parts.coverage, 1);
  t.is(parts.phrase, 1);
});

test("the built-in reranker puts the compound holding both words above a passage holding one", async (t) => {
  const reranker = createBuiltinReranker({ lexicon, now: () => now });
  const [withCompound, withOne] = await reranker.rerank("the secret path", [
    { id: "compound", ...compound },
    { id: "one", ...oneWord },
  ]);
  t.true((withCompound ?? 0) > (withOne ?? 0), `${withCompound} vs ${withOne}`);
});
