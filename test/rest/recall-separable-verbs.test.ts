import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { writeDictdFixture } from "../models/dictd-fixture.js";
import {
  assertFirstMatchedThrough,
  matchedTerms,
  type NotesWorkspace,
  startWithNotes,
} from "./explained-recall.js";

// German separable verbs end to end (ADR 0680): in "Wann findet die Abstimmung statt?" the verb is
// stattfinden (happen), not finden (find). The service reads the dictionaries LEXICON_DIR names (here
// ones the test writes in Debian's FreeDict layout); a German question whose particle ends the clause
// finds the English memory through the joined verb's translation, as explain's matched terms show.

let directory: string;
let workspace: NotesWorkspace;

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), "separable-recall-"));
  await writeDictdFixture(directory, "freedict-deu-eng", [
    { headwords: ["finden"], text: "finden /fˈɪndən/ <v>\nfind <v>\n" },
    { headwords: ["stattfinden"], text: "stattfinden /ʃtˈatfɪndən/ <v>\nhappen <v>, take place <v>\n" },
    { headwords: ["stecken"], text: "stecken /ʃtˈɛkən/ <v>\nput <v>, stick <v>\n" },
    { headwords: ["anstecken"], text: "anstecken /ˈanʃtɛkən/ <v>\ninfect <v>\n" },
  ]);
  await writeDictdFixture(directory, "freedict-eng-deu", [
    { headwords: ["find"], text: "find /fˈaɪnd/\nfinden <v>\n" },
    { headwords: ["happen"], text: "happen /hˈæpən/\ngeschehen <v>, stattfinden <v>\n" },
    { headwords: ["infect"], text: "infect /ɪnfˈɛkt/\nanstecken <v>\n" },
  ]);
  workspace = await startWithNotes(
    {
      LEXICON_DIR: directory,
      LEXICON_CACHE_DIR: join(directory, "cache"),
      THESAURUS_DE: "none",
      THESAURUS_EN: "none",
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
  await workspace?.service.stop();
  await rm(directory, { recursive: true, force: true });
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
