import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import { expandQueryTerms } from "../../core/models/query-terms/expand-query-terms.js";
import { cleanThesaurusTerm } from "../../core/models/thesaurus/clean-thesaurus-term.js";
import { findSynonyms } from "../../core/models/thesaurus/find-synonyms.js";
import { loadThesaurus } from "../../core/models/thesaurus/load-thesaurus.js";
import { openMythes } from "../../core/models/thesaurus/open-mythes.js";
import { parseOpenThesaurus } from "../../core/models/thesaurus/read-openthesaurus.js";

// The thesaurus readers (ADR 0520) on small files written here in the formats Debian installs:
// MyThes idx/dat (mythes-de, mythes-en-us) and the OpenThesaurus text export (openthesaurus-de-text).

let directory: string;

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), "thesaurus-fixture-"));
});

test.after.always(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Writes `th_<name>.{idx,dat}` from headword → meaning lines ("(noun)|a|b"), with correct byte offsets. */
async function writeMythes(name: string, entries: ReadonlyArray<readonly [string, readonly string[]]>) {
  let dat = "UTF-8\n";
  const index: string[] = [];
  for (const [headword, meanings] of entries) {
    index.push(`${headword}|${Buffer.byteLength(dat)}`);
    dat += `${headword}|${meanings.length}\n${meanings.map((m) => `${m}\n`).join("")}`;
  }
  // The last entry without a final newline: the reader must take the file's end as the line's end.
  dat = dat.slice(0, -1);
  const sorted = [...index].sort();
  await writeFile(join(directory, `${name}.dat`), dat);
  await writeFile(join(directory, `${name}.idx`), `UTF-8\n${sorted.length}\n${sorted.join("\n")}\n`);
  return join(directory, `${name}.dat`);
}

const LONG_MEANING = `(noun)|${Array.from({ length: 900 }, (_, i) => `word${i}`).join("|")}`;

test("thesaurus terms lose register labels; hypernyms, antonyms and elliptic entries are dropped", (t) => {
  t.is(cleanThesaurusTerm("Bude (ugs.)"), "bude");
  t.is(cleanThesaurusTerm("(sich) anstecken"), "anstecken");
  t.is(cleanThesaurusTerm("Vakzination (fachspr.)"), "vakzination");
  t.is(cleanThesaurusTerm("Gebäude (Oberbegriff)"), undefined);
  t.is(cleanThesaurusTerm("city (generic term)"), undefined);
  t.is(cleanThesaurusTerm("unhappy (antonym)"), undefined);
  t.is(cleanThesaurusTerm("Haus..."), undefined);
  t.is(cleanThesaurusTerm("im Jahr (...)"), undefined);
});

test("MyThes: meanings in file order, headword itself and relation terms left out, read by offset", async (t) => {
  const path = await writeMythes("th_en_TEST", [
    ["disease", ["(noun)|illness|sickness|malady|condition (generic term)"]],
    [
      "happy",
      ["(adj)|glad|joyful (similar term)|unhappy (antonym)", "(adj)|felicitous", "(adj)|well-chosen"],
    ],
    ["huge", [LONG_MEANING]],
    ["zeal", ["(noun)|ardor|Zeal|fervor"]],
  ]);
  const thesaurus = await openMythes(path.replace(/\.dat$/, ".idx"), path);
  t.is(thesaurus.headwords, 4);
  t.deepEqual(thesaurus.meanings("disease"), [["illness", "sickness", "malady"]]);
  t.deepEqual(thesaurus.meanings("happy"), [["glad"], ["felicitous"], ["well-chosen"]]);
  // An entry longer than one read (4 KB) is read whole.
  t.is(thesaurus.meanings("huge")[0]?.length, 900);
  // The last entry of the file, which ends without a newline; the headword's own spelling is dropped.
  t.deepEqual(thesaurus.meanings("zeal"), [["ardor", "fervor"]]);
  t.deepEqual(thesaurus.meanings("unknown"), []);
});

test("MyThes files in an encoding other than UTF-8 or ISO8859-1 are refused", async (t) => {
  await writeFile(join(directory, "th_xx.idx"), "KOI8-R\n0\n");
  await writeFile(join(directory, "th_xx.dat"), "KOI8-R\n");
  await t.throwsAsync(openMythes(join(directory, "th_xx.idx"), join(directory, "th_xx.dat")), {
    message: /unsupported MyThes encoding/,
  });
});

test("OpenThesaurus text: one synset a line, comments skipped, a word in each synset it belongs to", (t) => {
  const thesaurus = parseOpenThesaurus(
    [
      "# OpenThesaurus - German Thesaurus in text format",
      "Impfung;Schutzimpfung;Immunisierung;Vakzination (fachspr.)",
      "anstecken;infizieren",
      "anstecken;anzünden;entfachen;Feuer machen",
      "Haus...;hausintern",
      "",
    ].join("\n"),
  );
  t.deepEqual(thesaurus.meanings("impfung"), [["schutzimpfung", "immunisierung", "vakzination"]]);
  t.deepEqual(thesaurus.meanings("anstecken"), [["infizieren"], ["anzünden", "entfachen", "feuer machen"]]);
  // A line left with one term is no synset.
  t.deepEqual(thesaurus.meanings("hausintern"), []);
  t.is(thesaurus.headwords, 9);
});

test("loadThesaurus reads configured files, says which language has none, and honours 'none'", async (t) => {
  const text = join(directory, "openthesaurus.txt");
  await writeFile(text, "Impfung;Immunisierung\n");
  const mythes = await writeMythes("th_en_LOAD", [["disease", ["(noun)|illness"]]]);
  const both = await loadThesaurus({ de: text, en: mythes });
  t.is(both.warning, undefined);
  t.deepEqual(
    both.thesaurus.sources.map((s) => [s.language, s.format, s.headwords]),
    [
      ["de", "openthesaurus", 2],
      ["en", "mythes", 1],
    ],
  );
  t.deepEqual(both.thesaurus.meanings("impfung", "de"), [["immunisierung"]]);
  t.deepEqual(both.thesaurus.meanings("impfung", "en"), []);
  t.deepEqual(both.thesaurus.meanings("disease", "en"), [["illness"]]);

  const missing = await loadThesaurus({ de: join(directory, "nowhere.txt"), en: "none" });
  t.deepEqual(missing.thesaurus.sources, []);
  t.is(missing.thesaurus.fingerprint, "");
  t.regex(missing.warning ?? "", /no German thesaurus at .*nowhere\.txt/);
  t.notRegex(missing.warning ?? "", /English/);
});

test("synonyms only for words with few senses, from short synsets, found through inflections", (t) => {
  const thesaurus = parseOpenThesaurus(
    [
      "Symptom;Krankheitszeichen;Beschwerde",
      "Bank;Sitzbank",
      "Bank;Geldinstitut;Kreditinstitut",
      "Bank;Sandbank",
      "Bank;Spielbank;Kasino",
      "Virus;Computervirus",
      "Treffen;Zusammenkunft;Meeting;Versammlung;Begegnung;Tagung;Konferenz;Zusammentreffen;Sitzung;Runde",
    ].join("\n"),
  );
  const of = (word: string) =>
    findSynonyms(
      { sources: [], fingerprint: "t", meanings: (w) => thesaurus.meanings(w) },
      undefined,
      word,
      "de",
    );
  // "Symptome" is no headword; without its ending it is.
  t.deepEqual(of("symptome"), { synonyms: ["krankheitszeichen", "beschwerde"], meanings: 1 });
  // Four senses: too ambiguous.
  t.is(of("bank"), undefined);
  // A compound of the word narrows it: not a synonym.
  t.is(of("virus"), undefined);
  // Ten synonyms in one sense: a loose cluster.
  t.is(of("treffen"), undefined);
});

test("query expansion adds synonyms of the query's language at the synonym weight, none for numbers", (t) => {
  const german = parseOpenThesaurus("Impfung;Immunisierung\n19;Neunzehn\n");
  const english = parseOpenThesaurus("vaccination;immunization\n");
  const thesaurus = {
    sources: [],
    fingerprint: "expansion-test",
    meanings: (word: string, language: "de" | "en") => (language === "de" ? german : english).meanings(word),
  };
  const lexicon = createEmptyLexicon();
  const terms = expandQueryTerms(lexicon, "Wann gibt es die Impfung?", { thesaurus, synonymWeight: 0.4 });
  t.deepEqual(
    terms.map((term) => [term.term, term.weight, term.kind]),
    [
      ["impfung", 1, "query"],
      ["immunisierung", 0.4, "synonym"],
    ],
  );
  // An English query gets English synonyms only.
  const englishTerms = expandQueryTerms(lexicon, "when is the vaccination for the impfung", {
    thesaurus,
    synonymWeight: 0.4,
  });
  t.deepEqual(
    englishTerms.filter((term) => term.kind === "synonym").map((term) => term.term),
    ["immunization"],
  );
  // Without a synonym weight (the default) nothing is added.
  t.true(expandQueryTerms(lexicon, "Impfung", { thesaurus }).every((term) => term.kind === "query"));
  t.true(
    expandQueryTerms(lexicon, "Was war 19?", { thesaurus, synonymWeight: 0.4 }).every(
      (term) => term.term !== "neunzehn",
    ),
  );
});
