import test from "ava";
import {
  assertFirstMatchedThrough,
  type DictionaryNotesWorkspace,
  matchedTerms,
  startWithDictionaries,
} from "./explained-recall.js";

// German separable verbs end to end (ADR 0680): in "Wann findet die Abstimmung statt?" the verb is
// stattfinden (happen), not finden (find). The service reads the dictionaries LEXICON_DIR names (here
// ones the test writes in Debian's FreeDict layout); a German question whose particle ends the clause
// finds the English memory through the joined verb's translation, as explain's matched terms show.

let workspace: DictionaryNotesWorkspace;

test.before(async () => {
  workspace = await startWithDictionaries(
    {
      germanEnglish: [
        { headwords: ["finden"], text: "finden /fˈɪndən/ <v>\nfind <v>\n" },
        { headwords: ["stattfinden"], text: "stattfinden /ʃtˈatfɪndən/ <v>\nhappen <v>, take place <v>\n" },
        { headwords: ["stecken"], text: "stecken /ʃtˈɛkən/ <v>\nput <v>, stick <v>\n" },
        { headwords: ["anstecken"], text: "anstecken /ˈanʃtɛkən/ <v>\ninfect <v>\n" },
      ],
      englishGerman: [
        { headwords: ["find"], text: "find /fˈaɪnd/\nfinden <v>\n" },
        { headwords: ["happen"], text: "happen /hˈæpən/\ngeschehen <v>, stattfinden <v>\n" },
        { headwords: ["infect"], text: "infect /ɪnfˈɛkt/\nanstecken <v>\n" },
      ],
    },
    {
      vote: "The vote on the new budget will happen at the spring meeting.",
      keys: "Nobody could find the spare keys for the garden shed.",
      virus: "Most people infect others through droplets when they cough or sneeze.",
      poster: "Please put the poster on the notice board by the kitchen.",
    },
  );
});

test.after.always(async () => {
  await workspace?.stop();
});

test.serial("a clause-final particle's verb finds the memory through its translation", async (t) => {
  const hits = await workspace.recall("Wann findet die Abstimmung statt?");
  assertFirstMatchedThrough(t, hits, workspace.ids.vote, "happ");
});

test.serial(
  "a verb split around its object is joined too, and the verb alone's sense comes second",
  async (t) => {
    const hits = await workspace.recall("Wie stecke ich mich an?");
    assertFirstMatchedThrough(t, hits, workspace.ids.virus, "infect");
    // "stecke" alone is put/stick: the poster still matches through it, below the joined verb.
    const poster = hits.findIndex((hit) => hit.memoryId === workspace.ids.poster);
    t.true(poster > 0, `poster at ${poster}`);
  },
);

test.serial("a clause without a particle at its end is searched word by word as before", async (t) => {
  const hits = await workspace.recall("Wer hat die Schlüssel gefunden?");
  t.deepEqual(matchedTerms(hits.find((hit) => hit.memoryId === workspace.ids.vote)), []);
});
