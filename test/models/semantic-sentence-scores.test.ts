import test from "ava";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import {
  createUseLiteEncoder,
  type SentenceEncoder,
} from "../../core/models/sentence-encoder/create-use-lite-encoder.js";
import { createSentenceVectorCache } from "../../core/models/sentence-encoder/sentence-vector-cache.js";

// The built-in reranker's semantic sentence scores (ADR 0760) with the real English encoder: English
// queries only, the encoder loaded with the first of them, passages in another language neutral (the
// median), candidates below the scored head neutral; the sentence-vector cache's scopes and eviction.

let encoder: SentenceEncoder;
test.before(async () => {
  const created = await createUseLiteEncoder({ threads: 1 });
  if (created === undefined) throw new Error("the USE lite package is not installed");
  encoder = created;
});
test.after.always(() => encoder?.release());

const candidate = (text: string) => ({ id: text.slice(0, 12), title: "", text });

test("English: the paraphrase scores highest; a German or French query is not scored and loads nothing", async (t) => {
  let loads = 0;
  const reranker = createBuiltinReranker({
    lexicon: createEmptyLexicon(),
    sentenceEncoder: async () => {
      loads++;
      return encoder;
    },
  });
  const german = await reranker.scoreSentencesSemantically?.("Kann mein Hund das Virus bekommen?", [
    candidate("Können sich Haustiere wie Katzen und Hunde mit dem Coronavirus anstecken?"),
    candidate("Darf ich meinen Hund mit ins Büro bringen?"),
  ]);
  t.is(german, undefined);
  // Nor a French one: the language detector knows German and English only, English by default.
  const french = await reranker.scoreSentencesSemantically?.("Mon chien peut-il attraper le virus ?", [
    candidate("Les animaux de compagnie peuvent-ils être infectés par le coronavirus ?"),
    candidate("Puis-je amener mon chien au bureau ?"),
  ]);
  t.is(french, undefined);
  t.is(loads, 0);
  const scores =
    (await reranker.scoreSentencesSemantically?.("Can my dog catch the virus?", [
      candidate("Can I bring my dog to the office? Only on Fridays."),
      candidate("Can pets such as cats and dogs be infected with the coronavirus? A few animals have."),
      candidate("Can I catch the bus at the main entrance? Line 12 stops there."),
    ])) ?? [];
  t.is(loads, 1);
  t.is(scores.length, 3);
  t.true((scores[1] ?? 0) > (scores[0] ?? 0) && (scores[1] ?? 0) > (scores[2] ?? 0), scores.join(", "));
});

test("a German passage among English ones and candidates below the head get the median", async (t) => {
  const reranker = createBuiltinReranker({
    lexicon: createEmptyLexicon(),
    sentenceEncoder: async () => encoder,
  });
  const english = [
    "Can pets such as cats and dogs be infected with the coronavirus?",
    "Can I bring my dog to the office?",
    "How long does the virus survive on surfaces?",
    "Can I catch the bus at the main entrance?",
  ];
  const texts = [
    ...english,
    "Können sich Haustiere wie Katzen und Hunde mit dem Coronavirus anstecken?",
    ...Array.from({ length: 6 }, (_, i) => `Filler entry number ${i} about the canteen menu.`),
    "Can dogs get the coronavirus from their owners?",
  ];
  const scores =
    (await reranker.scoreSentencesSemantically?.("Can my dog catch the virus?", texts.map(candidate))) ?? [];
  t.is(scores.length, texts.length);
  const head = [...scores.slice(0, 4), ...scores.slice(5, 10)].sort((a, b) => a - b);
  const median = head[Math.floor(head.length / 2)];
  t.is(scores[4], median, "the German passage");
  // The 12th candidate is below the head of 10: the head's median (the German one included), though
  // it is the closest paraphrase of all.
  const withGerman = scores.slice(0, 10).sort((a, b) => a - b);
  t.is(scores[11], withGerman[Math.floor(withGerman.length / 2)]);
  // Mostly German passages: no scores at all.
  t.is(
    await reranker.scoreSentencesSemantically?.("Can my dog catch the virus?", [
      candidate("Können sich Haustiere mit dem Coronavirus anstecken?"),
      candidate("Darf ich meinen Hund mit ins Büro bringen?"),
      candidate("Can I bring my dog to the office?"),
    ]),
    undefined,
  );
});

test("a statement and its update are not told apart: near-duplicate sentences score alike", async (t) => {
  const reranker = createBuiltinReranker({
    lexicon: createEmptyLexicon(),
    sentenceEncoder: async () => encoder,
  });
  const scores =
    (await reranker.scoreSentencesSemantically?.("Where is Mira's job?", [
      candidate("My job is at the bank on Main Street."),
      candidate("My job is at the bakery on Main Street."),
      candidate("The weather was fine and the train was slow."),
    ])) ?? [];
  t.is(scores[0], scores[1]);
  t.true((scores[0] ?? 0) > (scores[2] ?? 0), scores.join(", "));
});

test("the sentence-vector cache: one encoding per text and tenant, least recently used evicted", async (t) => {
  let encoded = 0;
  const counting: SentenceEncoder = {
    ...encoder,
    embed: async (texts) => {
      encoded += texts.length;
      return encoder.embed(texts);
    },
  };
  const cache = createSentenceVectorCache(2);
  const [a1] = await cache.embed(counting, "tenant-a", ["first sentence", "first sentence"]);
  t.is(encoded, 1);
  await cache.embed(counting, "tenant-a", ["first sentence"]);
  t.is(encoded, 1);
  // Another tenant's request encodes its own copy.
  const [b1] = await cache.embed(counting, "tenant-b", ["first sentence"]);
  t.is(encoded, 2);
  t.deepEqual(b1, a1);
  // Two entries kept: a third evicts the least recently used (tenant-a's).
  await cache.embed(counting, "tenant-b", ["second sentence"]);
  t.is(encoded, 3);
  await cache.embed(counting, "tenant-a", ["first sentence"]);
  t.is(encoded, 4);
});
