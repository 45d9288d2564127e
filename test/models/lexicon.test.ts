import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import fc from "fast-check";
import { cleanTranslationLine } from "../../core/models/lexicon/clean-translation.js";
import {
  decodeDictdNumber,
  encodeDictdNumber,
  parseDictdIndex,
} from "../../core/models/lexicon/dictd-index.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { ENGLISH_GERMAN, GERMAN_ENGLISH, writeDictdFixture } from "./dictd-fixture.js";

async function fixtureDirectory(withEnglishGerman = true): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "lexicon-fixture-"));
  await writeDictdFixture(directory, "freedict-deu-eng", GERMAN_ENGLISH);
  if (withEnglishGerman) await writeDictdFixture(directory, "freedict-eng-deu", ENGLISH_GERMAN);
  return directory;
}

const texts = (translations: ReadonlyArray<{ text: string }>) => translations.map(({ text }) => text);

test("dictd base64 numbers round-trip and reject foreign characters", (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 40 }),
      (value) => decodeDictdNumber(encodeDictdNumber(value)) === value,
    ),
  );
  t.is(decodeDictdNumber("B0"), 64 + 52);
  t.is(decodeDictdNumber("A*"), undefined);
  t.is(decodeDictdNumber(""), undefined);
});

test("index parsing keeps headword, offset and length and skips malformed lines", (t) => {
  const { lines, skipped } = parseDictdIndex("haus\tBT/Op\tIP\nbroken line\ngehen\tA\tB\n");
  t.deepEqual(lines, [
    { headword: "haus", offset: decodeDictdNumber("BT/Op"), length: decodeDictdNumber("IP") },
    { headword: "gehen", offset: 0, length: 1 },
  ]);
  t.is(skipped, 1);
});

test("translation lines lose grammar, domains, parentheticals, articles, placeholders and 'to'", (t) => {
  t.deepEqual(cleanTranslationLine(" [Am.] Abwehr <fem>, Verteidigung <fem> [sport]", "de"), [
    "abwehr",
    "verteidigung",
  ]);
  t.deepEqual(cleanTranslationLine("to run <v>, the race (sports) <n>", "en"), ["run", "race"]);
  t.deepEqual(cleanTranslationLine("sich jdm. stellen <v, refl>, kapitulieren <v, intr>", "de"), [
    "stellen",
    "kapitulieren",
  ]);
  t.deepEqual(cleanTranslationLine("gehen/laufen, reach a place/as far as a place with many words", "de"), [
    "gehen",
    "laufen",
  ]);
});

test("the fixture dictionaries give cleaned translations in both directions, best first", async (t) => {
  const directory = await fixtureDirectory();
  const { lexicon, source, warning } = await loadLexicon({ dictionaryDirectory: directory });
  t.is(source, "dictionaries");
  t.is(warning, undefined);
  t.deepEqual(texts(lexicon.translate("haus", "de2en")).sort(), ["home", "house"]);
  t.true(texts(lexicon.translate("gehen", "de2en")).includes("walk"));
  t.deepEqual(texts(lexicon.translate("verteidigung", "de2en")), ["defense", "defence"]);
  const weights = lexicon.translate("haus", "de2en").map(({ weight }) => weight);
  t.true(Math.abs(weights.reduce((sum, weight) => sum + weight, 0) - 1) < 1e-3);
  // eng-deu read backwards adds German headwords: "kapitulieren" is only an English entry's translation.
  t.deepEqual(texts(lexicon.translate("kapitulieren", "de2en")), ["surrender"]);
  t.deepEqual(texts(lexicon.translate("house", "en2de")), ["haus"]);
  t.deepEqual(texts(lexicon.translate("went", "en2de")), ["gehen"]);
  t.true(lexicon.has("schutz", "de2en"));
  t.false(lexicon.has("00-database-info", "de2en"));
  t.deepEqual(lexicon.translate("unbekannt", "de2en"), []);
  await rm(directory, { recursive: true });
});

test("irregular forms map to their dictionary form; examples count once per language", async (t) => {
  const directory = await fixtureDirectory();
  const { lexicon } = await loadLexicon({ dictionaryDirectory: directory });
  t.is(lexicon.lemma("went", "en"), "go");
  t.is(lexicon.lemma("gone", "en"), "go");
  t.is(lexicon.lemma("ging", "de"), "gehen");
  t.is(lexicon.lemma("geht", "de"), "gehen");
  t.is(lexicon.lemma("haus", "de"), undefined);
  // "ein Haus bauen" / "build a house" appears in both dictionaries: one sentence per language.
  t.deepEqual(lexicon.exampleCount, { de: 1, en: 1 });
  t.is(lexicon.exampleFrequency("haus", "de"), 1);
  t.is(lexicon.exampleFrequency("house", "en"), 1);
  t.is(lexicon.exampleFrequency("gehen", "de"), 0);
  await rm(directory, { recursive: true });
});

test("a cache file makes the second load read the tables back unchanged; new dictionaries invalidate it", async (t) => {
  const directory = await fixtureDirectory();
  const cacheDirectory = await mkdtemp(join(tmpdir(), "lexicon-cache-"));
  const first = await loadLexicon({ dictionaryDirectory: directory, cacheDirectory });
  const second = await loadLexicon({ dictionaryDirectory: directory, cacheDirectory });
  t.is(first.source, "dictionaries");
  t.is(second.source, "cache");
  for (const word of ["haus", "gehen", "kapitulieren", "verteidigung"]) {
    t.deepEqual(second.lexicon.translate(word, "de2en"), first.lexicon.translate(word, "de2en"));
  }
  t.is(second.lexicon.lemma("went", "en"), "go");
  t.deepEqual(second.lexicon.exampleCount, first.lexicon.exampleCount);
  await writeDictdFixture(directory, "freedict-deu-eng", [
    ...GERMAN_ENGLISH,
    { headwords: ["baum"], text: "Baum /baʊm/ <masc>\ntree <n>\n" },
  ]);
  const third = await loadLexicon({ dictionaryDirectory: directory, cacheDirectory });
  t.is(third.source, "dictionaries");
  t.deepEqual(texts(third.lexicon.translate("baum", "de2en")), ["tree"]);
  // The cache of the old edition is removed when the new one is written.
  t.is((await readdir(cacheDirectory)).filter((name) => name.endsWith(".bin")).length, 1);
  await rm(directory, { recursive: true });
  await rm(cacheDirectory, { recursive: true });
});

test("without dictionaries the lexicon is empty and says why, once", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "lexicon-none-"));
  const { lexicon, source, warning } = await loadLexicon({ dictionaryDirectory: directory });
  t.is(source, "none");
  t.regex(warning ?? "", /no FreeDict dictionaries in .*lexicon-none-/);
  t.deepEqual(lexicon.headwordCount, { de2en: 0, en2de: 0 });
  t.deepEqual(lexicon.translate("haus", "de2en"), []);
  t.is(lexicon.exampleFrequency("haus", "de"), 0);
  await rm(directory, { recursive: true });
});

test("one dictionary alone still works, with a warning naming the missing one", async (t) => {
  const directory = await fixtureDirectory(false);
  const { lexicon, warning } = await loadLexicon({ dictionaryDirectory: directory });
  t.regex(warning ?? "", /missing freedict-eng-deu/);
  t.deepEqual(texts(lexicon.translate("haus", "de2en")).sort(), ["home", "house"]);
  // The German-English dictionary read backwards still translates English words.
  t.deepEqual(texts(lexicon.translate("river", "en2de")), ["fluss"]);
  await rm(directory, { recursive: true });
});

test("a damaged dictionary file degrades to an empty lexicon instead of failing", async (t) => {
  const directory = await fixtureDirectory();
  await writeFile(join(directory, "freedict-deu-eng.dict.dz"), "not gzip at all");
  const { lexicon, source, warning } = await loadLexicon({ dictionaryDirectory: directory });
  t.is(source, "none");
  t.regex(warning ?? "", /could not read the FreeDict dictionaries/);
  t.deepEqual(lexicon.translate("haus", "de2en"), []);
  await rm(directory, { recursive: true });
});
