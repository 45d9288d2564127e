import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { splitSentences } from "../../core/models/builtin/best-sentence-similarity.js";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { dictionariesInstalled } from "./dictionaries-installed.js";

// The built-in reranker's best-sentence cosine (ADR 0630): which sentences, what they score, and a
// conversation turn without its speaker label.

const realTest = (await dictionariesInstalled()) ? test : test.skip;

const candidate = (text: string) => ({ id: text.slice(0, 12), title: "", text });

test("sentences: cut at line breaks and at ., ! or ? before a capital or a digit, not after an ordinal", (t) => {
  t.deepEqual(splitSentences("Wie lange dauert es?\nBis zu 14 Tage. Meist 5 bis 6.\n\n  "), [
    "Wie lange dauert es?",
    "Bis zu 14 Tage.",
    "Meist 5 bis 6.",
  ]);
  t.deepEqual(splitSentences('He said "Go." Then he left. A 2. Platz, 3 Mio. Euro.'), [
    'He said "Go."',
    "Then he left.",
    "A 2. Platz, 3 Mio.",
    "Euro.",
  ]);
  t.deepEqual(splitSentences("Am 3. Oktober 2026 kam er. Er blieb bis 2027. Dann ging er."), [
    "Am 3. Oktober 2026 kam er.",
    "Er blieb bis 2027.",
    "Dann ging er.",
  ]);
  t.deepEqual(splitSentences(""), []);
});

test("the passage whose one sentence says what the query asks scores above one with the words spread", async (t) => {
  const reranker = createBuiltinReranker({ lexicon: createEmptyLexicon() });
  const query = "Wie lange dauert die Inkubationszeit beim Coronavirus?";
  const filler = "Das Gesundheitsamt informiert regelmäßig. Bitte halten Sie Abstand.";
  const [together, spread, unrelated] =
    (await reranker.scoreBestSentences?.(query, [
      candidate(`Die Inkubationszeit beim Coronavirus dauert bis zu 14 Tage. ${filler}`),
      candidate(
        `Das Coronavirus ist neu und verbreitet sich schnell. Die Inkubationszeit ist bei vielen Krankheiten bekannt. Manches dauert länger. ${filler}`,
      ),
      candidate(`Der Zug nach Berlin fährt um acht Uhr ab. ${filler}`),
    ])) ?? [];
  t.true((together ?? 0) > (spread ?? 0) + 0.1, `together ${together}, spread ${spread}`);
  t.true((together ?? 0) <= 1 + 1e-9);
  // No sentence shares a content word, and the passage is not short: nothing to score.
  t.is(unrelated, 0);
});

test("a short sentence that shares only function words still gets its cosine", async (t) => {
  const reranker = createBuiltinReranker({ lexicon: createEmptyLexicon() });
  const [short, empty] =
    (await reranker.scoreBestSentences?.("Ich bin es.", [candidate("Bin ich es?"), candidate("")])) ?? [];
  t.true((short ?? 0) > 0.5, `short ${short}`);
  t.is(empty, 0);
});

realTest("across languages: a German question meets the English sentence that answers it", async (t) => {
  const { lexicon } = await loadLexicon({
    cacheDirectory: join(tmpdir(), "memory-service-test-lexicon-cache"),
  });
  const reranker = createBuiltinReranker({ lexicon });
  const [answer, other] =
    (await reranker.scoreBestSentences?.("Wann wurde die Brücke gebaut?", [
      candidate("The city has a long history. The bridge was built in 1890 by a local engineer."),
      candidate("The city has a long history. The market is open on Sundays."),
    ])) ?? [];
  t.true((answer ?? 0) > (other ?? 0) + 0.1, `answer ${answer}, other ${other}`);
});

test("a conversation turn's speaker label is not part of what it says", async (t) => {
  const reranker = createBuiltinReranker({ lexicon: createEmptyLexicon() });
  const query = "Was hat Anna zum Umzug gesagt?";
  const turns = ["Anna: Für die Stelle fehlt noch jemand.", "Jonas: Der Umzug ist verschoben."];
  const episodic = (await reranker.scoreBestSentences?.(
    query,
    turns.map((text) => ({ ...candidate(text), memoryType: "episodic" })),
  )) ?? [0, 0];
  t.true((episodic[1] ?? 0) > (episodic[0] ?? 0), `episodic ${episodic}`);
  // Other memories keep their first words: "Anna:" there is content.
  const semantic = (await reranker.scoreBestSentences?.(query, turns.map(candidate))) ?? [0, 0];
  t.true((semantic[0] ?? 0) > 0, `semantic ${semantic}`);
});
