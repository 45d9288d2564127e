import test from "ava";
import {
  assertFirstMatchedThrough,
  type DictionaryNotesWorkspace,
  matchedTerms,
  startWithDictionaries,
} from "./explained-recall.js";

// Round-trip paraphrases end to end (issue 50 item 2, ADR 0650): the service reads the dictionaries
// LEXICON_DIR names (here ones the test writes in Debian's FreeDict layout), and a query word whose
// translation translates back into another word of its language ("Fluss" → river → Strom) finds the
// memory that uses that word — BM25 matched it through the paraphrase, as explain's matched terms show.

let workspace: DictionaryNotesWorkspace;

test.before(async () => {
  workspace = await startWithDictionaries(
    {
      germanEnglish: [
        { headwords: ["fluss"], text: "Fluss /flʊs/ <masc, n, sg>\nriver <n>\n" },
        { headwords: ["strom"], text: "Strom /ʃtroːm/ <masc, n, sg>\ncurrent <n>, river <n>\n" },
      ],
      englishGerman: [{ headwords: ["river"], text: "river /ɹˈɪvə/\nFluss <masc>, Strom <masc>\n" }],
    },
    {
      target: "Der Strom trennt die beiden Städte seit jeher.",
      library: "Die Bibliothek schließt im August für zwei Wochen.",
      party: "Das Sommerfest findet diesmal im Innenhof statt.",
    },
  );
});

test.after.always(async () => {
  await workspace?.stop();
});

test.serial("a query word's round-trip paraphrase finds the memory that words it differently", async (t) => {
  const hits = await workspace.recall("Wo ist der Fluss?");
  assertFirstMatchedThrough(t, hits, workspace.ids.target, "strom");
});

test.serial("the memories that share no word and no paraphrase match no term", async (t) => {
  const hits = await workspace.recall("Wo ist der Fluss?");
  for (const id of [workspace.ids.library, workspace.ids.party])
    t.deepEqual(matchedTerms(hits.find((hit) => hit.memoryId === id)), []);
});
