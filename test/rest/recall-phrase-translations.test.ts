import test from "ava";
import {
  assertFirstMatchedThrough,
  type DictionaryNotesWorkspace,
  matchedTerms,
  startWithDictionaries,
} from "./explained-recall.js";

// Phrase and compound translations end to end (ADR 0690, 0700): "sign language" is one German word, Gebärdensprache,
// which neither "sign" (Zeichen, Schild) nor "language" (Sprache) translates to. The service reads the
// dictionaries LEXICON_DIR names (here ones the test writes in Debian's FreeDict layout); an English
// question finds the German memory through the phrase's translation, as explain's matched terms show.

let workspace: DictionaryNotesWorkspace;

test.before(async () => {
  workspace = await startWithDictionaries(
    {
      germanEnglish: [
        {
          headwords: ["gebärdensprache"],
          text: "Gebärdensprache /ɡəˈbɛːɐ̯dn̩ʃpʁaːxə/ <fem, n, sg>\nsign language <n>\n",
        },
        { headwords: ["sprache"], text: "Sprache /ˈʃpʁaːxə/ <fem, n, sg>\nlanguage <n>\n" },
        { headwords: ["verteidigung"], text: "Verteidigung /fɛɐ̯ˈtaɪ̯dɪɡʊŋ/ <fem, n, sg>\ndefence <n>\n" },
        { headwords: ["spieler"], text: "Spieler /ˈʃpiːlɐ/ <masc, n, sg>\nplayer <n>\n" },
      ],
      englishGerman: [
        { headwords: ["sign"], text: "sign /sˈaɪn/\nZeichen <neut>, Schild <neut>\n" },
        { headwords: ["language"], text: "language /lˈæŋɡwɪdʒ/\nSprache <fem>\n" },
        { headwords: ["sign language"], text: "sign language /sˈaɪn lˈæŋɡwɪdʒ/\nGebärdensprache <fem>\n" },
        { headwords: ["use"], text: "use /jˈuːz/\nnutzen <v>\n" },
      ],
    },
    {
      deaf: "Viele gehörlose Menschen verständigen sich in Gebärdensprache.",
      contract: "Die Sprache des Vertrags ist Deutsch, die Unterschrift fehlt noch.",
      garden: "Im Garten blühen schon die ersten Tulpen.",
      defence: "Our best defence player this season was Josh Norman.",
      season: "The season ended early in May.",
    },
  );
});

test.after.always(async () => {
  await workspace?.stop();
});

test.serial("an English phrase finds the German compound through the phrase's translation", async (t) => {
  const hits = await workspace.recall("Which people use sign language?");
  assertFirstMatchedThrough(t, hits, workspace.ids.deaf, "gebardensprach");
});

test.serial("the words' own translations still match, below the phrase", async (t) => {
  const hits = await workspace.recall("Which people use sign language?");
  const contract = hits.find((hit) => hit.memoryId === workspace.ids.contract);
  t.true(matchedTerms(contract).some((term) => term.startsWith("sprach")));
  t.deepEqual(matchedTerms(hits.find((hit) => hit.memoryId === workspace.ids.garden)), []);
});

test.serial(
  "a German compound the dictionary lacks finds English text through its parts (ADR 0700)",
  async (t) => {
    const hits = await workspace.recall("Wer war der beste Verteidigungsspieler?");
    assertFirstMatchedThrough(t, hits, workspace.ids.defence, "defenc");
    t.true(matchedTerms(hits[0]).some((term) => term.startsWith("play")));
  },
);
