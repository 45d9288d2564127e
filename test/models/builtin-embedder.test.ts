import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import test from "ava";
import fc from "fast-check";
import { approximateTokenCount, PIECE } from "../../core/models/builtin/approximate-token-count.js";
import {
  BUILTIN_EMBEDDER_ID,
  createBuiltinEmbedder,
  createBuiltinEmbedderWithLexicon,
} from "../../core/models/builtin/create-builtin-embedder.js";
import { STORED_VECTOR_DIM } from "../../core/models/embedding-provider.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import type { Thesaurus } from "../../core/models/thesaurus/thesaurus.js";
import { ENGLISH_GERMAN, GERMAN_ENGLISH, writeDictdFixture } from "./dictd-fixture.js";

function cosine(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

const PINNED_DIGEST = "eeab1318a09fb3cbb81c78ec2c886dcc";

const norm = (vector: Float32Array) => Math.sqrt(cosine(vector, vector));

async function fixtureLexicon() {
  const directory = await mkdtemp(join(tmpdir(), "embedder-fixture-"));
  await writeDictdFixture(directory, "freedict-deu-eng", GERMAN_ENGLISH);
  await writeDictdFixture(directory, "freedict-eng-deu", ENGLISH_GERMAN);
  const { lexicon } = await loadLexicon({ dictionaryDirectory: directory });
  await rm(directory, { recursive: true });
  return lexicon;
}

const SAMPLES = [
  "Die Verteidigung der Panthers gab nur 308 Punkte ab.",
  "The Panthers defense gave up just 308 points.",
  "Ein Wort.",
  "x",
  "Datenschutzbeauftragter",
];

test("vectors have 1024 dimensions and unit length, for queries and passages", async (t) => {
  const embedder = await createBuiltinEmbedder({ lexicon: false });
  t.is(embedder.dim, STORED_VECTOR_DIM);
  for (const purpose of ["query", "passage"] as const) {
    for (const vector of await embedder.embed(SAMPLES, purpose)) {
      t.is(vector.length, STORED_VECTOR_DIM);
      t.true(Math.abs(norm(vector) - 1) < 1e-5);
    }
  }
});

test("embedding is deterministic across calls and across instances", async (t) => {
  const lexicon = await fixtureLexicon();
  const first = createBuiltinEmbedderWithLexicon(lexicon);
  const second = createBuiltinEmbedderWithLexicon(lexicon);
  const [a, b, c] = [
    await first.embed(SAMPLES, "passage"),
    await first.embed(SAMPLES, "passage"),
    await second.embed(SAMPLES, "passage"),
  ];
  t.deepEqual(a, b);
  t.deepEqual(a, c);
  t.is(first.id, second.id);
});

/**
 * The vectors of the space named by BUILTIN_EMBEDDER_ID, pinned: stored vectors stay comparable with
 * new ones only while every text embeds to the same bits. A speed-up must leave this digest alone; a
 * deliberate change of the vectors changes it together with the id. Recorded 2026-12-02 before the
 * allocation-lean rewrite of the feature extraction (and unchanged by it).
 */
test("the vectors of this embedding space are pinned bit for bit", async (t) => {
  const embedder = createBuiltinEmbedderWithLexicon(await fixtureLexicon());
  const plain = await createBuiltinEmbedder({ lexicon: false });
  const texts = [
    ...SAMPLES,
    "Der Bundestag beschloss 1990 die Wiedervereinigung; die Hauptstadt wurde Berlin.",
    "Tom isst gern Äpfel und Birnen im Garten seines Hauses.",
    "sign language and the national anthem",
    "Eine Verteidigungsministerin und ein Datenschutzbeauftragter trafen sich am 3. Oktober.",
  ];
  const digest = createHash("sha256");
  for (const model of [embedder, plain])
    for (const purpose of ["query", "passage"] as const)
      for (const vector of await model.embed(texts, purpose)) digest.update(new Uint8Array(vector.buffer));
  t.is(digest.digest("hex").slice(0, 32), PINNED_DIGEST);
});

test("text without words gives the zero vector, which is similar to nothing", async (t) => {
  const embedder = await createBuiltinEmbedder({ lexicon: false });
  const [empty, blank, punctuation, words] = await embedder.embed(
    ["", "   \n", "!!! ?", "Haus am See"],
    "query",
  );
  for (const vector of [empty, blank, punctuation]) {
    t.is(vector?.length, STORED_VECTOR_DIM);
    t.true(vector?.every((value) => value === 0));
  }
  t.is(cosine(empty ?? new Float32Array(), words ?? new Float32Array()), 0);
  t.deepEqual(await embedder.embed([], "passage"), []);
});

test("inflected German forms stay close (Snowball stems)", async (t) => {
  const embedder = await createBuiltinEmbedder({ lexicon: false });
  const [plural, singular, unrelated] = await embedder.embed(
    [
      "Die Häuser am Fluss wurden verkauft",
      "Das Haus am Fluss wird verkauft",
      "Der Zug nach Berlin fährt um acht",
    ],
    "passage",
  );
  if (plural === undefined || singular === undefined || unrelated === undefined) return t.fail();
  t.true(cosine(plural, singular) > 0.5, `cosine ${cosine(plural, singular)}`);
  t.true(cosine(plural, singular) > cosine(plural, unrelated) + 0.3);
});

test("a compound meets its parts written apart (dictionary decompounding)", async (t) => {
  const embedder = createBuiltinEmbedderWithLexicon(await fixtureLexicon());
  const [compound, apart, unrelated] = await embedder.embed(
    ["Datenschutzbeauftragter", "Beauftragter für Datenschutz", "Zug am Fluss"],
    "passage",
  );
  if (compound === undefined || apart === undefined || unrelated === undefined) return t.fail();
  t.true(cosine(compound, apart) > 0.3, `cosine ${cosine(compound, apart)}`);
  t.true(cosine(compound, apart) > cosine(compound, unrelated) + 0.2);
});

test("with a lexicon, German and English words meet; without one they do not", async (t) => {
  const crossLingual = createBuiltinEmbedderWithLexicon(await fixtureLexicon());
  const [haus, house, train] = await crossLingual.embed(
    ["das Haus am Fluss", "the house", "the train"],
    "passage",
  );
  if (haus === undefined || house === undefined || train === undefined) return t.fail();
  t.true(cosine(haus, house) > cosine(haus, train) + 0.2, `${cosine(haus, house)} vs ${cosine(haus, train)}`);
  const monolingual = await createBuiltinEmbedder({ lexicon: false });
  const [hausAlone, houseAlone] = await monolingual.embed(["das Haus am Fluss", "the house"], "passage");
  if (hausAlone === undefined || houseAlone === undefined) return t.fail();
  t.true(Math.abs(cosine(hausAlone, houseAlone)) < 0.15);
});

test("the id names the space: it differs without a dictionary and with other settings", async (t) => {
  const lexicon = await fixtureLexicon();
  const withLexicon = createBuiltinEmbedderWithLexicon(lexicon);
  const without = await createBuiltinEmbedder({ lexicon: false });
  const tuned = createBuiltinEmbedderWithLexicon(lexicon, { stopwordWeight: 0 });
  t.true(withLexicon.id.startsWith(BUILTIN_EMBEDDER_ID));
  t.true(withLexicon.crossLingual);
  t.false(without.crossLingual);
  t.not(withLexicon.id, without.id);
  t.not(withLexicon.id, tuned.id);
  t.is(createBuiltinEmbedderWithLexicon(lexicon, { stopwordWeight: 0 }).id, tuned.id);
});

test("absent dictionaries: the embedder still works, monolingual, and reports why", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "embedder-no-dictionary-"));
  const embedder = await createBuiltinEmbedder({ lexicon: { dictionaryDirectory: directory } });
  t.false(embedder.crossLingual);
  t.regex(embedder.lexiconWarning ?? "", /no FreeDict dictionaries/);
  const [vector] = await embedder.embed(["Ein Satz ohne Wörterbuch"], "query");
  t.true(Math.abs(norm(vector ?? new Float32Array()) - 1) < 1e-5);
  await rm(directory, { recursive: true });
});

test("the embedder can be built inside a worker thread and embeds as in the main thread", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "embedder-worker-"));
  await writeDictdFixture(directory, "freedict-deu-eng", GERMAN_ENGLISH);
  await writeDictdFixture(directory, "freedict-eng-deu", ENGLISH_GERMAN);
  const options = { lexicon: { dictionaryDirectory: directory } };
  const text = "Das Haus am Fluss";
  const worker = new Worker(new URL("./embed-in-worker.mjs", import.meta.url), {
    workerData: {
      moduleUrl: new URL("../../core/models/builtin/create-builtin-embedder.ts", import.meta.url).href,
      options,
      text,
      purpose: "passage",
    },
  });
  const fromWorker = await new Promise<{ id: string; vector: Float32Array }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  const embedder = await createBuiltinEmbedder(options);
  const [vector] = await embedder.embed([text], "passage");
  t.is(fromWorker.id, embedder.id);
  t.deepEqual(fromWorker.vector, vector);
  await rm(directory, { recursive: true });
});

test("token counts are deterministic, monotone as text grows, and count long words as several", (t) => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (prefix, suffix) => {
      const whole = approximateTokenCount(prefix + suffix);
      return approximateTokenCount(prefix) <= whole && whole === approximateTokenCount(prefix + suffix);
    }),
  );
  fc.assert(
    fc.property(fc.array(fc.constantFrom("Haus", "Datenschutz", " ", ".", "1999", "ä", "-")), (pieces) => {
      const text = pieces.join("");
      return approximateTokenCount(text) <= approximateTokenCount(`${text} Wort`);
    }),
  );
  t.is(approximateTokenCount(""), 0);
  t.is(approximateTokenCount("Haus"), 1);
  t.is(approximateTokenCount("Haus."), 2);
  t.true(approximateTokenCount("Datenschutzbeauftragter") >= 5);
  t.true(approximateTokenCount("1234567890") >= 3);
  // Chinese, Japanese and Korean: a letter each (a clause is not one long word).
  t.is(approximateTokenCount("我们讨论发布计划。"), 9);
  t.is(approximateTokenCount("iPhone手机"), 4);
});

/** The definition the scan implements: one regular-expression match per piece. */
function tokenCountByRegex(text: string): number {
  let count = 0;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    const first = piece.codePointAt(0) ?? 0;
    if (first >= 0x30 && first <= 0x39) count += Math.ceil(piece.length / 3);
    else if (/\p{L}/u.test(piece)) {
      const cjk = [...piece].filter((c) =>
        /(?=\p{L})[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]/u.test(c),
      );
      count += cjk.length + Math.ceil((piece.length - cjk.join("").length) / 4);
    } else count += 1;
  }
  return count;
}

test("the token count's character scan equals the piece pattern on any text", (t) => {
  // ASCII, umlauts, combining marks, non-ASCII digits and letters, astral letters and emoji, Unicode
  // spaces, control characters and lone surrogates — alone and glued to each other.
  const parts = [
    "a",
    "Z",
    "7",
    "0",
    " ",
    "\t",
    "\n",
    "\r",
    "\v",
    "\f",
    "\u001c",
    "\u{1d167}",
    "\u{e0100}",
    ".",
    "-",
    "'",
    "\u0000",
    "\u007f",
    "ä",
    "ß",
    "é",
    "\u0301",
    "\u0308",
    "²",
    "½",
    "٣",
    "Ⅻ",
    "\u00a0",
    "\u2003",
    "\u3000",
    "\ufeff",
    "ж",
    "中",
    "あ",
    "ー",
    "한",
    "𠀀",
    "𝐀",
    "😀",
    "\ud800",
    "\udc00",
    "ǅ",
    "ʰ",
    "\u200d",
    "—",
    "€",
    "Straße",
    "2026",
    "x²",
    "e\u0301",
    "Datenschutzbeauftragter",
  ];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 40 }), (pieces) => {
      const text = pieces.join("");
      return approximateTokenCount(text) === tokenCountByRegex(text);
    }),
    { numRuns: 5_000 },
  );
  t.is(
    approximateTokenCount("Köln hat 1.085.000 Einwohner²!"),
    tokenCountByRegex("Köln hat 1.085.000 Einwohner²!"),
  );
});

test("thesaurus synonyms in the query's features (ADR 0540): off by default, passages never change", async (t) => {
  const lexicon = await fixtureLexicon();
  const thesaurus: Thesaurus = {
    sources: [],
    fingerprint: "fixture",
    meanings: (word, language) => (language === "de" && word === "symptome" ? [["krankheitszeichen"]] : []),
  };
  const texts = ["Welche Symptome gibt es?", "Welche Krankheitszeichen treten auf?"];
  const plain = createBuiltinEmbedderWithLexicon(lexicon);
  const defaults = createBuiltinEmbedderWithLexicon(lexicon, {}, thesaurus);
  t.deepEqual(await defaults.embed(texts, "query"), await plain.embed(texts, "query"));
  const withSynonyms = createBuiltinEmbedderWithLexicon(lexicon, { querySynonymWeight: 0.5 }, thesaurus);
  t.deepEqual(await withSynonyms.embed(texts, "passage"), await plain.embed(texts, "passage"));
  const [question] = await plain.embed(texts, "query");
  const [expanded] = await withSynonyms.embed(texts, "query");
  const [, answer] = await plain.embed(texts, "passage");
  if (question === undefined || expanded === undefined || answer === undefined) return t.fail();
  t.true(cosine(expanded, answer) > cosine(question, answer) + 0.05, `${cosine(expanded, answer)}`);
  // Passages with synonyms are another space: their id names the thesaurus.
  const passages = createBuiltinEmbedderWithLexicon(lexicon, { passageSynonymWeight: 0.5 }, thesaurus);
  t.not(passages.id, plain.id);
  t.true(passages.id.includes("-th"));
});
