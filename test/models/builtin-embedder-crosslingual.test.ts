import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createBuiltinEmbedder } from "../../core/models/builtin/create-builtin-embedder.js";
import { DEFAULT_DICTIONARY_DIRECTORY, loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { dictionariesInstalled } from "./dictionaries-installed.js";

/**
 * Cross-lingual behaviour with the real FreeDict dictionaries Debian installs (dict-freedict-deu-eng,
 * dict-freedict-eng-deu). The parsed tables are cached in the system temp directory, keyed by the
 * dictionaries' sizes and dates, so only the first run pays the ≈ 20 s parse.
 */
const CACHE_DIRECTORY = join(tmpdir(), "memory-service-test-lexicon-cache");

const installed = await dictionariesInstalled();
const realTest = installed ? test : test.skip;
if (!installed) {
  console.warn(
    `skipping cross-lingual tests: FreeDict dictionaries not found in ${DEFAULT_DICTIONARY_DIRECTORY} (apt-get install dict-freedict-deu-eng dict-freedict-eng-deu)`,
  );
}

/** One embedder for all tests of this file: the lexicon is loaded once. */
const embedderPromise = installed
  ? createBuiltinEmbedder({ lexicon: { cacheDirectory: CACHE_DIRECTORY } })
  : undefined;
const sharedEmbedder = async () => {
  if (embedderPromise === undefined) throw new Error("dictionaries not installed");
  return embedderPromise;
};

function cosine(left: Float32Array | undefined, right: Float32Array | undefined): number {
  if (left === undefined || right === undefined) return Number.NaN;
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

/** German sentence, its English translation, and an unrelated English sentence sharing no words. */
const PAIRS: ReadonlyArray<readonly [string, string, string]> = [
  [
    "Der Vertrag wurde gestern vom Vorstand unterschrieben.",
    "The contract was signed by the board yesterday.",
    "My sister plays the violin in an orchestra.",
  ],
  [
    "Ich habe meinen Schlüssel im Auto vergessen.",
    "I forgot my key in the car.",
    "The river flooded the village after heavy rain.",
  ],
  [
    "Die Regierung plant neue Steuern auf Benzin.",
    "The government is planning new taxes on petrol.",
    "She baked a chocolate cake for his birthday.",
  ],
  [
    "Unser Kunde möchte die Rechnung per E-Mail erhalten.",
    "Our customer would like to receive the invoice by email.",
    "The mountains were covered in snow all winter.",
  ],
];

realTest(
  "a German sentence is closer to its English translation than to an unrelated sentence",
  async (t) => {
    const embedder = await sharedEmbedder();
    t.true(embedder.crossLingual, embedder.lexiconWarning ?? "");
    for (const [german, english, unrelated] of PAIRS) {
      const [query] = await embedder.embed([german], "query");
      const [translation, other] = await embedder.embed([english, unrelated], "passage");
      t.true(
        cosine(query, translation) > cosine(query, other) + 0.1,
        `${german} → ${cosine(query, translation).toFixed(3)} vs ${cosine(query, other).toFixed(3)}`,
      );
    }
  },
);

realTest("an English question finds the German passage that answers it", async (t) => {
  const embedder = await sharedEmbedder();
  const passages = PAIRS.map(([german]) => german);
  const vectors = await embedder.embed(passages, "passage");
  for (const [index, [, english]] of PAIRS.entries()) {
    const [query] = await embedder.embed([english], "query");
    const scores = vectors.map((vector) => cosine(query, vector));
    const best = scores.indexOf(Math.max(...scores));
    t.is(best, index, `${english} → ${passages[best]}`);
  }
});

realTest("the same German question in other words still meets the English passage", async (t) => {
  const embedder = await sharedEmbedder();
  const [passage, unrelated] = await embedder.embed(
    [
      "The data protection officer checks how customer data is stored.",
      "The train to Berlin leaves at eight.",
    ],
    "passage",
  );
  for (const question of ["Was prüft der Datenschutzbeauftragte?", "Wer kontrolliert die Kundendaten?"]) {
    const [query] = await embedder.embed([question], "query");
    t.true(cosine(query, passage) > cosine(query, unrelated) + 0.05, question);
  }
});

realTest("an English phrase the dictionary knows as one German compound meets that compound", async (t) => {
  const embedder = await sharedEmbedder();
  // "national anthem" → Nationalhymne: only the phrase's own entry gives the compound (word by word:
  // national + Hymne). The embedder looks a pair up only when its first word starts some phrase.
  const { lexicon } = await loadLexicon({ cacheDirectory: CACHE_DIRECTORY });
  t.true(lexicon.startsPhrase("national", "en2de"));
  t.false(lexicon.startsPhrase("anthem", "en2de"));
  t.true(lexicon.has("national anthem", "en2de"));
  const [query] = await embedder.embed(["the national anthem"], "query");
  const [compound, words] = await embedder.embed(
    ["Die Nationalhymne wurde gespielt.", "Eine nationale Hymne wurde gespielt."],
    "passage",
  );
  const [reversed] = await embedder.embed(["the anthem national"], "query");
  t.true(cosine(query, compound) > cosine(reversed, compound) + 0.05, "the phrase adds the compound");
  // Word by word the two passages are even ("national" ≈ "nationale", "anthem" → Hymne); the phrase decides.
  t.true(cosine(query, compound) > cosine(query, words));
});
