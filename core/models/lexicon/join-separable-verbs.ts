/**
 * German separable verbs put back together: in a main clause the particle goes to the end, away from its
 * verb ("Wann fand die Wahl statt?" is stattfinden, "Wie stecke ich mich an?" anstecken, "Wer trat
 * zurück?" zurücktreten). Word by word, "fand" is found and "statt" instead: the verb's meaning (take
 * place, infect, resign) is in neither part, in BM25, in the dictionary's translations or in the
 * reranker's word matches.
 *
 * A clause that ends in a particle (lower-case, as German writes it there) is joined with the first
 * earlier word of the clause whose infinitive — the word itself, its irregular form's lemma, or the
 * word less a regular ending plus -en/-n — makes a verb the dictionary knows with that particle. The
 * dictionary is the check: "… von der 2-Yard Line aus?" ends in a preposition, and no "aus…" verb is
 * made from its words, so nothing is joined.
 */
import type { Lexicon } from "./lexicon.js";

/** The particles of German separable verbs that end a clause ("an", "statt", "zurück", "kennen", …). */
const PARTICLES: ReadonlySet<string> = new Set([
  "ab",
  "an",
  "auf",
  "aus",
  "bei",
  "bekannt",
  "dar",
  "durch",
  "ein",
  "fest",
  "fort",
  "frei",
  "her",
  "heran",
  "heraus",
  "herein",
  "herum",
  "hervor",
  "hin",
  "hinaus",
  "hinein",
  "hinzu",
  "hoch",
  "kennen",
  "los",
  "mit",
  "nach",
  "nieder",
  "statt",
  "teil",
  "um",
  "vor",
  "voran",
  "voraus",
  "vorbei",
  "weg",
  "weiter",
  "wieder",
  "zu",
  "zurecht",
  "zurück",
  "zusammen",
]);

/** Endings of a finite verb form, longest first ("fragtest", "fragte", "fragt", "frage", "fragst"). */
const FINITE_ENDINGS = ["test", "tet", "ten", "te", "est", "st", "et", "t", "en", "e"] as const;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LETTER = /[\p{L}\p{M}\p{N}]/u;
const CLAUSE_BREAK = /[.,;:!?()\n"„“”«»]/gu;
const MIN_STEM_LENGTH = 2;

/** A separable verb found in a text: the joined infinitive and the finite verb it stands for. */
export interface SeparableVerb {
  /** Lower-cased infinitive, e.g. "stattfinden". */
  readonly verb: string;
  /** The finite form in the text, lower-cased, e.g. "fand". */
  readonly finite: string;
}

/**
 * The infinitives a finite form may belong to, most likely first: by a regular ending ("kommt" →
 * kommen, "setzt" → setzen), then the dictionary's lemma of an irregular form ("fand" → finden). The
 * lemma comes last because FreeDict's form lists are loose ("setzt" is listed under stellen).
 */
function infinitives(word: string, lexicon: Lexicon): string[] {
  const found: string[] = [];
  for (const ending of FINITE_ENDINGS) {
    if (!word.endsWith(ending)) continue;
    const stem = word.slice(0, word.length - ending.length);
    if (stem.length < MIN_STEM_LENGTH) continue;
    // -eln/-ern verbs take -n ("zweifelte" → zweifeln); the others -en.
    found.push(/(?:el|er)$/.test(stem) ? `${stem}n` : `${stem}en`);
  }
  const lemma = lexicon.lemma(word, "de");
  if (lemma !== undefined) found.push(lemma);
  return found;
}

/**
 * The separable verbs of a German text, in text order; none when the lexicon is empty. Only the word
 * before each clause break is looked at first (passages are read at rerank time: no scan of every
 * position); a clause is read word by word only when that word is a particle, written lower-case (a
 * capitalised "AB" or "An" is a name or a sentence's start).
 */
export function joinSeparableVerbs(text: string, lexicon: Lexicon): SeparableVerb[] {
  if (lexicon.headwordCount.de2en === 0) return [];
  const normalized = text.normalize("NFC");
  const joined: SeparableVerb[] = [];
  let clauseStart = 0;
  const readClause = (clauseEnd: number) => {
    let end = clauseEnd;
    while (end > clauseStart && /\s/u.test(normalized[end - 1] as string)) end--;
    let start = end;
    while (start > clauseStart && LETTER.test(normalized[start - 1] as string)) start--;
    const particle = normalized.slice(start, end);
    if (!PARTICLES.has(particle)) return;
    const words = normalized.slice(clauseStart, start).toLowerCase().match(WORD) ?? [];
    // At least two words before the particle: "stecke an" alone is no clause to read.
    if (words.length < 2) return;
    const verb = findVerb(words, particle, lexicon);
    if (verb !== undefined) joined.push(verb);
  };
  CLAUSE_BREAK.lastIndex = 0;
  for (let m = CLAUSE_BREAK.exec(normalized); m !== null; m = CLAUSE_BREAK.exec(normalized)) {
    readClause(m.index);
    clauseStart = m.index + 1;
  }
  readClause(normalized.length);
  return joined;
}

function findVerb(words: readonly string[], particle: string, lexicon: Lexicon): SeparableVerb | undefined {
  for (const word of words) {
    if (word.length < MIN_STEM_LENGTH || PARTICLES.has(word)) continue;
    for (const infinitive of infinitives(word, lexicon)) {
      const verb = particle + infinitive;
      if (lexicon.has(verb, "de2en")) return { verb, finite: word };
    }
  }
  return undefined;
}
