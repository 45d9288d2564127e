import test from "ava";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { expandQueryTerms } from "../../core/models/query-terms/expand-query-terms.js";
import { type FixtureEntry, loadFixtureLexicon } from "./dictd-fixture.js";

// Two adjacent query words the dictionary knows as one headword are translated as the phrase (ADR
// 0690): "sign language" is Gebärdensprache, which neither word's translation spells. On dictionaries
// the test writes in the FreeDict layout Debian installs.

const ENGLISH_GERMAN: readonly FixtureEntry[] = [
  { headwords: ["sign"], text: "sign /sˈaɪn/\nZeichen <neut>, Schild <neut>\n" },
  { headwords: ["language"], text: "language /lˈæŋɡwɪdʒ/\nSprache <fem>\n" },
  { headwords: ["sign language"], text: "sign language /sˈaɪn lˈæŋɡwɪdʒ/\nGebärdensprache <fem>\n" },
  { headwords: ["ball"], text: "ball /bˈɔːl/\nBall <masc>\n" },
  { headwords: ["the ball"], text: "the ball /ðə bˈɔːl/\nFußball <masc>\n" },
];

const GERMAN_ENGLISH: readonly FixtureEntry[] = [
  { headwords: ["überstunden"], text: "Überstunden /ˈyːbɐʃtʊndən/ <pl>\novertime <n>\n" },
  { headwords: ["machen"], text: "machen /mˈaxən/ <v>\nmake <v>, do <v>\n" },
  {
    headwords: ["überstunden machen"],
    text: "Überstunden machen /ˈyːbɐʃtʊndən mˈaxən/ <v>\nwork overtime <v>\n",
  },
];

let lexicon: Lexicon;
let removeFixture: (() => Promise<void>) | undefined;

test.before(async () => {
  const loaded = await loadFixtureLexicon("phrase-fixture", GERMAN_ENGLISH, ENGLISH_GERMAN);
  lexicon = loaded.lexicon;
  removeFixture = loaded.remove;
});

test.after.always(async () => {
  await removeFixture?.();
});

const translations = (query: string) =>
  expandQueryTerms(lexicon, query).filter((term) => term.kind === "translation");

test("an English phrase the dictionary knows is translated whole, for its head word", (t) => {
  const found = translations("Who uses sign language?");
  const compound = found.find((term) => term.term === "gebärdensprache");
  t.like(compound, { language: "de", from: "language" });
  // Weighted like a word's only translation; the words' own translations stay.
  t.is(compound?.weight, 1);
  t.true(found.some((term) => term.term === "zeichen"));
  t.true(found.some((term) => term.term === "sprache"));
});

test("a German phrase is translated whole as well", (t) => {
  const found = translations("Muss ich Überstunden machen?");
  t.true(
    found.some((term) => term.term === "work" && term.from === "machen"),
    JSON.stringify(found),
  );
});

test("words that are not adjacent, and pairs with a stop word, are not a phrase", (t) => {
  t.false(translations("a sign in another language").some((term) => term.term === "gebärdensprache"));
  t.false(translations("Where is the ball?").some((term) => term.term === "fußball"));
});

test("without translations (weight 0) no phrase is translated either", (t) => {
  t.deepEqual(
    expandQueryTerms(lexicon, "Who uses sign language?", { translationWeight: 0 }).filter(
      (term) => term.kind === "translation",
    ),
    [],
  );
});
