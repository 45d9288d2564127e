/**
 * Writes tiny dictd dictionaries (`<name>.index` + gzip `<name>.dict.dz`) in the FreeDict layout, so the
 * lexicon is tested on data the tests make themselves (the installed FreeDict files are GPL/AGPL and are
 * never copied into the repository).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { encodeDictdNumber } from "../../core/models/lexicon/dictd-index.js";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";

export interface FixtureEntry {
  /** Index headwords pointing at the entry (dictd lower-cases them). */
  readonly headwords: readonly string[];
  readonly text: string;
}

export async function writeDictdFixture(
  directory: string,
  name: string,
  entries: readonly FixtureEntry[],
): Promise<void> {
  await mkdir(directory, { recursive: true });
  const header = "00-database-info\nA test dictionary written by the test suite.\n\n";
  const parts: Buffer[] = [Buffer.from(header, "utf8")];
  const indexLines = [
    `00-database-info\t${encodeDictdNumber(0)}\t${encodeDictdNumber(parts[0]?.length ?? 0)}`,
  ];
  let offset = parts[0]?.length ?? 0;
  for (const entry of entries) {
    const bytes = Buffer.from(`${entry.text}\n`, "utf8");
    for (const headword of entry.headwords) {
      indexLines.push(`${headword}\t${encodeDictdNumber(offset)}\t${encodeDictdNumber(bytes.length)}`);
    }
    parts.push(bytes);
    offset += bytes.length;
  }
  await writeFile(join(directory, `${name}.index`), `${indexLines.sort().join("\n")}\n`);
  await writeFile(join(directory, `${name}.dict.dz`), gzipSync(Buffer.concat(parts)));
}

/** German → English entries as FreeDict writes them: grammar in <>, domains in [], examples quoted. */
export const GERMAN_ENGLISH: readonly FixtureEntry[] = [
  {
    headwords: ["haus"],
    text: 'Haus /hˈaʊs/ <neut, n, sg>\nhouse <n>, home <n>\n      "ein Haus bauen"  - build a house\n',
  },
  {
    headwords: ["gehen"],
    text: "gehen /ɡˈeːən/ <v, intr>\ngo <v>, to walk <v>\n see: {gehend}, {gegangen}, {er/sie geht}, {ich/er/sie ging}\n",
  },
  {
    headwords: ["verteidigung"],
    text: "Verteidigung /fɛɾtˈaɪdɪɡʊŋ/ <fem, n, sg>\n [Am.] defense <n>, defence <n> [Br.] (of a thesis)\n",
  },
  { headwords: ["daten"], text: "Daten /dˈɑːtən/ <pl>\ndata <pl>\n" },
  { headwords: ["schutz"], text: "Schutz /ʃʊts/ <masc, n, sg>\nprotection <n>\n" },
  { headwords: ["datenschutz"], text: "Datenschutz /dˈɑːtənʃʊts/ <masc, n, sg>\ndata protection <n>\n" },
  {
    headwords: ["beauftragter"],
    text: "Beauftragter /bəˈaʊftɾɑːktɜ/ <masc, n, sg>\nofficer <n>, commissioner <n>\n",
  },
  { headwords: ["fluss"], text: "Fluss /flʊs/ <masc, n, sg>\nriver <n>\n" },
  { headwords: ["zug"], text: "Zug /tsuːk/ <masc, n, sg>\ntrain <n>\n" },
];

/** English → German entries, including an irregular verb's forms and placeholders to strip. */
export const ENGLISH_GERMAN: readonly FixtureEntry[] = [
  {
    headwords: ["house"],
    text: 'house /hˈaʊs/\nHaus <neut>\n      "build a house"  - ein Haus bauen\n',
  },
  {
    headwords: ["go", "went", "gone"],
    text: "go /ɡˈəʊ/ (went /wˈɛnt/ <>, gone /ɡˈɒn/ <>) <v>\ngehen <v, intr>\n",
  },
  {
    headwords: ["surrender"],
    text: "surrender /səɹˈɛndə/ <v>\nsich jdm. stellen <v, refl>, kapitulieren <v, intr>\n",
  },
  { headwords: ["river"], text: "river /ɹˈɪvə/\nFluss <masc>, Strom <masc>\n" },
];

/**
 * A lexicon read from German→English and English→German dictionaries the test writes in a fresh
 * directory; `remove` deletes it (call it in `test.after.always`).
 */
export async function loadFixtureLexicon(
  prefix: string,
  germanEnglish: readonly FixtureEntry[],
  englishGerman: readonly FixtureEntry[],
): Promise<{ readonly lexicon: Lexicon; remove(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const remove = () => rm(directory, { recursive: true, force: true });
  try {
    await writeDictdFixture(directory, "freedict-deu-eng", germanEnglish);
    await writeDictdFixture(directory, "freedict-eng-deu", englishGerman);
    const { lexicon } = await loadLexicon({ dictionaryDirectory: directory });
    return { lexicon, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
