import test from "ava";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { expandQueryTerms } from "../../core/models/query-terms/expand-query-terms.js";
import { type FixtureEntry, loadFixtureLexicon } from "./dictd-fixture.js";

// A German compound the dictionary lacks is translated by its parts in the query expansion (ADR
// 0700): "Verteidigungsspieler" is not a headword, "Verteidigung" and "Spieler" are. On dictionaries
// the test writes in the FreeDict layout Debian installs.

const GERMAN_ENGLISH: readonly FixtureEntry[] = [
  { headwords: ["verteidigung"], text: "Verteidigung /fɛɐ̯ˈtaɪ̯dɪɡʊŋ/ <fem, n, sg>\ndefence <n>\n" },
  { headwords: ["spieler"], text: "Spieler /ˈʃpiːlɐ/ <masc, n, sg>\nplayer <n>, gambler <n>\n" },
  { headwords: ["fuß"], text: "Fuß /fuːs/ <masc, n, sg>\nfoot <n>\n" },
  { headwords: ["ball"], text: "Ball /bal/ <masc, n, sg>\nball <n>\n" },
  { headwords: ["fußball"], text: "Fußball /ˈfuːsbal/ <masc, n, sg>\nfootball <n>, soccer <n>\n" },
  { headwords: ["fußballspiel"], text: "Fußballspiel /ˈfuːsbalʃpiːl/ <neut, n, sg>\nfootball match <n>\n" },
];

const ENGLISH_GERMAN: readonly FixtureEntry[] = [
  { headwords: ["player"], text: "player /plˈeɪə/\nSpieler <masc>\n" },
];

let lexicon: Lexicon;
let removeFixture: (() => Promise<void>) | undefined;

test.before(async () => {
  const loaded = await loadFixtureLexicon("compound-translation-fixture", GERMAN_ENGLISH, ENGLISH_GERMAN);
  lexicon = loaded.lexicon;
  removeFixture = loaded.remove;
});

test.after.always(async () => {
  await removeFixture?.();
});

const translationsOf = (query: string, word: string) =>
  expandQueryTerms(lexicon, query).filter((term) => term.kind === "translation" && term.from === word);

test("a compound the dictionary lacks is translated by its parts, each part like a word", (t) => {
  const found = translationsOf("Wer war der beste Verteidigungsspieler?", "verteidigungsspieler");
  const weights = Object.fromEntries(found.map((term) => [term.term, term.weight]));
  t.is(weights.defence, 1);
  // "Spieler" has two translations: they share the part's weight, the first ahead.
  t.true((weights.player ?? 0) > (weights.gambler ?? 0), JSON.stringify(found));
  t.true(found.every((term) => term.language === "en"));
});

test("a compound the dictionary knows keeps its own translations only", (t) => {
  const found = translationsOf("Wann ist das Fußballspiel?", "fußballspiel");
  t.deepEqual(found.map((term) => term.term).sort(), ["football", "match"], JSON.stringify(found));
});
