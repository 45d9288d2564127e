import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import {
  assertFirstMatchedThrough,
  matchedTerms,
  type NotesWorkspace,
  startWithNotes,
} from "./explained-recall.js";

// Paraphrase recall through a thesaurus (issue 50 item 2, ADR 0520): the service reads the thesaurus
// file THESAURUS_DE names (here one the test writes, in the OpenThesaurus text format Debian's
// openthesaurus-de-text installs), and a query word's synonym finds a memory that shares no word
// with the query — BM25 matched it through the synonym, as explain's matched terms show.

let directory: string;
let workspace: NotesWorkspace;

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), "thesaurus-recall-"));
  const thesaurusFile = join(directory, "openthesaurus.txt");
  await writeFile(
    thesaurusFile,
    [
      "# OpenThesaurus - German Thesaurus in text format",
      "Impfung;Immunisierung;Vakzination (fachspr.)",
    ].join("\n"),
  );
  // The real models (built-in embedder, FreeDict lexicon), with the thesaurus from the configuration.
  workspace = await startWithNotes(
    { THESAURUS_DE: thesaurusFile, THESAURUS_EN: "none" },
    {
      target: "Die Immunisierung der Belegschaft beginnt am Montag beim Betriebsarzt.",
      canteen: "Die Kantine öffnet am Montag wieder mit warmem Essen.",
      outing: "Der Betriebsausflug führt dieses Jahr an die Ostsee.",
    },
  );
});

test.after.always(async () => {
  await workspace?.service.stop();
  await rm(directory, { recursive: true, force: true });
});

test.serial("a query word's synonym finds the memory that words it differently", async (t) => {
  const hits = await workspace.recall("Wann gibt es die Impfung?");
  assertFirstMatchedThrough(t, hits, workspace.ids.target, "immunisier");
  t.not(hits[0]?.source, "vector");
});

test.serial("a word the thesaurus does not list gets no synonym", async (t) => {
  const hits = await workspace.recall("Wann gibt es die Spritze?");
  const target = hits.find((hit) => hit.memoryId === workspace.ids.target);
  t.false(matchedTerms(target).some((term) => term.startsWith("immunisier")));
});
