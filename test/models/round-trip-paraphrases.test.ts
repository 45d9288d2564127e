import test from "ava";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { expandQueryTerms } from "../../core/models/query-terms/expand-query-terms.js";
import { type FixtureEntry, loadFixtureLexicon } from "./dictd-fixture.js";

// Round-trip paraphrases (ADR 0650): a query word's translations translated back into the query's
// language, on dictionaries the test writes in the FreeDict layout Debian installs.

const GERMAN_ENGLISH: readonly FixtureEntry[] = [
  { headwords: ["fluss"], text: "Fluss /flʊs/ <masc, n, sg>\nriver <n>\n" },
  { headwords: ["strom"], text: "Strom /ʃtroːm/ <masc, n, sg>\ncurrent <n>, river <n>, electricity <n>\n" },
  { headwords: ["ufer"], text: "Ufer /ˈuːfɐ/ <neut, n, sg>\nriverside <n>, bank <n>\n" },
];

const ENGLISH_GERMAN: readonly FixtureEntry[] = [
  { headwords: ["river"], text: "river /ɹˈɪvə/\nFluss <masc>, Strom <masc>, Flussufer <neut>\n" },
  { headwords: ["current"], text: "current /kˈʌɹənt/\nStrom <masc>, Strömung <fem>\n" },
  { headwords: ["electricity"], text: "electricity /ɪlɛktɹˈɪsɪti/\nStrom <masc>, Elektrizität <fem>\n" },
  { headwords: ["bank"], text: "bank /bˈæŋk/\nBank <fem>, Ufer <neut>\n" },
];

let lexicon: Lexicon;
let removeFixture: (() => Promise<void>) | undefined;

test.before(async () => {
  const loaded = await loadFixtureLexicon("paraphrase-fixture", GERMAN_ENGLISH, ENGLISH_GERMAN);
  lexicon = loaded.lexicon;
  removeFixture = loaded.remove;
});

test.after.always(async () => {
  await removeFixture?.();
});

const paraphrases = (query: string, paraphraseWeight?: number) =>
  expandQueryTerms(lexicon, query, paraphraseWeight === undefined ? {} : { paraphraseWeight }).filter(
    (term) => term.kind === "synonym",
  );

test("a German word's translation translated back is a paraphrase of the query's language", (t) => {
  const found = paraphrases("Wo ist der Fluss?", 1);
  const strom = found.find((term) => term.term === "strom");
  t.truthy(strom, JSON.stringify(found));
  t.is(strom?.from, "fluss");
  t.is(strom?.language, "de");
  // Weighted by both translations' shares: below the query word's 1.
  t.true((strom?.weight ?? 1) > 0 && (strom?.weight ?? 1) < 1);
  // The word itself and its compounds ("Flussufer") come back too and are left out; nothing English.
  t.deepEqual(
    found.map((term) => term.term),
    ["strom"],
  );
});

test("an English word's paraphrases come back through German, weighted by the weight asked for", (t) => {
  const full = paraphrases("where does the current flow", 1);
  t.deepEqual(full.map((term) => term.term).sort(), ["electricity", "river"]);
  t.true(full.every((term) => term.language === "en" && term.from === "current"));
  const half = paraphrases("where does the current flow", 0.5);
  for (const term of half) {
    const whole = full.find((other) => other.term === term.term);
    t.is(term.weight, (whole?.weight ?? 0) / 2);
  }
});

test("without a paraphrase weight (the default) no round trip is made", (t) => {
  t.deepEqual(paraphrases("Wo ist der Fluss?"), []);
  t.deepEqual(paraphrases("Wo ist der Fluss?", 0), []);
});
