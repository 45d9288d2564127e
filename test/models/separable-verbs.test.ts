import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createBuiltinReranker } from "../../core/models/builtin/create-builtin-reranker.js";
import { analyzeRerankQuery } from "../../core/models/builtin/rerank-query.js";
import { joinSeparableVerbs } from "../../core/models/lexicon/join-separable-verbs.js";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { expandQueryTerms } from "../../core/models/query-terms/expand-query-terms.js";
import { type FixtureEntry, loadFixtureLexicon } from "./dictd-fixture.js";

// German separable verbs joined again when their particle ends the clause, on dictionaries the test
// writes in the FreeDict layout Debian installs.

const GERMAN_ENGLISH: readonly FixtureEntry[] = [
  // The irregular past: FreeDict's cross references name a verb's forms with their pronoun.
  { headwords: ["finden"], text: "finden /fɪndən/ <v>\nfind <v>\n\nsee: {gefunden}, {ich/er/sie fand}\n" },
  {
    headwords: ["stattfinden"],
    text: "stattfinden /ʃtatfɪndən/ <v>\ntake place <v>, happen <v>\n",
  },
  { headwords: ["stecken"], text: "stecken /ʃtɛkən/ <v>\nput <v>, stick <v>\n" },
  { headwords: ["anstecken"], text: "anstecken /anʃtɛkən/ <v>\ninfect <v>\n" },
  { headwords: ["zweifeln"], text: "zweifeln /tsvaɪfəln/ <v>\ndoubt <v>\n" },
  { headwords: ["anzweifeln"], text: "anzweifeln /antsvaɪfəln/ <v>\nquestion <v>, dispute <v>\n" },
  {
    headwords: ["fangen"],
    text: "fangen /faŋən/ <v>\ncatch <v>\n\nsee: {gefangen}, {er/sie fängt}, {ich/er/sie fing}\n",
  },
  { headwords: ["anfangen"], text: "anfangen /anfaŋən/ <v>\nbegin <v>, start <v>\n" },
  { headwords: ["fallen"], text: "fallen /falən/ <v>\nfall <v>\n\nsee: {er/sie fällt}\n" },
  { headwords: ["ausfallen"], text: "ausfallen /aʊsfalən/ <v>\nbe cancelled <v>\n" },
  { headwords: ["seminar"], text: "Seminar /zemiˈnaːɐ̯/ <neut, n, sg>\nseminar <n>\n" },
  { headwords: ["wahl"], text: "Wahl /vaːl/ <fem, n, sg>\nelection <n>\n" },
  { headwords: ["linie"], text: "Linie /liːni̯ə/ <fem, n, sg>\nline <n>\n" },
];

const ENGLISH_GERMAN: readonly FixtureEntry[] = [
  { headwords: ["infect"], text: "infect /ɪnfˈɛkt/\nanstecken <v>\n" },
  { headwords: ["election"], text: "election /ɪlˈɛkʃən/\nWahl <fem>\n" },
];

let lexicon: Lexicon;
let removeFixture: (() => Promise<void>) | undefined;

test.before(async () => {
  const loaded = await loadFixtureLexicon("separable-fixture", GERMAN_ENGLISH, ENGLISH_GERMAN);
  lexicon = loaded.lexicon;
  removeFixture = loaded.remove;
});

test.after.always(async () => {
  await removeFixture?.();
});

const joined = (text: string) =>
  joinSeparableVerbs(text, lexicon).map(({ verb, finite }) => `${finite}→${verb}`);

test("a clause-final particle is joined to the verb the dictionary knows with it", (t) => {
  t.deepEqual(joined("Wie stecke ich mich an?"), ["stecke→anstecken"]);
  t.deepEqual(joined("Steckt sich mein Baby bei mir an?"), ["steckt→anstecken"]);
  // -eln verbs take -n; the first clause ends at the comma.
  t.deepEqual(joined("Wer zweifelte die Ansicht an, die er vertrat?"), ["zweifelte→anzweifeln"]);
});

test("an irregular form reaches its verb through the dictionary's lemma", (t) => {
  t.deepEqual(joined("Wann fand die Wahl statt?"), ["fand→stattfinden"]);
  t.deepEqual(joined("Wie oft finden Wahlen statt? Wann fand die letzte statt."), [
    "finden→stattfinden",
    "fand→stattfinden",
  ]);
});

test("nothing is joined where no verb of the clause makes a known word with the particle", (t) => {
  // "aus" as a preposition at the end: no "aus…" verb is in the dictionary.
  t.deepEqual(joined("Wer erzielte einen Punkt von der Linie aus?"), []);
  // The particle must end its clause, be written lower-case, and follow at least two words.
  t.deepEqual(joined("Die Wahl fand statt, und alle kamen."), ["fand→stattfinden"]);
  t.deepEqual(joined("Statt fand die Wahl"), []);
  t.deepEqual(joined("Wie viele Linien hat die Firma Stecken AN?"), []);
  t.deepEqual(joined("stecke an"), []);
});

test("an empty lexicon joins nothing", async (t) => {
  const empty = await mkdtemp(join(tmpdir(), "separable-empty-"));
  try {
    const { lexicon: none } = await loadLexicon({ dictionaryDirectory: empty });
    t.deepEqual(joinSeparableVerbs("Wann fand die Wahl statt?", none), []);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});

test("query expansion searches the joined verb and its translations in the finite verb's stead", (t) => {
  const terms = expandQueryTerms(lexicon, "Wann fand die Wahl statt?", { paraphraseWeight: 1 });
  const verb = terms.find((term) => term.term === "stattfinden");
  t.like(verb, { kind: "separable-verb", from: "fand", weight: 1, language: "de" });
  // "take place" → its content words; "happen" whole.
  const translations = terms.filter((term) => term.kind === "translation" && term.from === "fand");
  t.true(
    translations.some((term) => term.term === "happen"),
    JSON.stringify(translations),
  );
  // An English query is left alone even where it ends in a German particle's spelling.
  t.false(
    expandQueryTerms(lexicon, "when did the election take place, and who stuck it in?").some(
      (term) => term.kind === "separable-verb",
    ),
  );
});

test("the built-in reranker matches the joined verb's translations as the finite verb", (t) => {
  const words = analyzeRerankQuery("Wie stecke ich mich an?", lexicon);
  const stecke = words.find((word) => word.word === "stecke");
  t.truthy(stecke);
  // "infect" is a translation of anstecken only: stecken alone is put/stick.
  t.true(stecke?.stems.has("infect"), JSON.stringify([...(stecke?.stems ?? [])]));
});

test("the built-in reranker joins a passage's split verb too: another form of it matches", async (t) => {
  const reranker = createBuiltinReranker({ lexicon });
  // "fing … an" and "fängt … an" are both anfangen; "fällt … aus" is ausfallen. Word by word the two
  // passages share only "Seminar" with the question (fing, fängt and fällt are three stems).
  const [begins, cancelled] = await reranker.rerank("Wann fing das Seminar an?", [
    { id: "begins", title: "", text: "Das Seminar fängt morgen um neun an." },
    { id: "cancelled", title: "", text: "Das Seminar fällt morgen um neun aus." },
  ]);
  t.true((begins ?? 0) > (cancelled ?? 0), `begins ${begins}, cancelled ${cancelled}`);
});
