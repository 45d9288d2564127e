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

/** Letters (any script) and marks: a word; anything else between words is a clause break or a space. */
const TOKEN = /[\p{L}\p{M}\p{N}]+|[.,;:!?()\n"„“”«»]/gu;
const WORD = /^[\p{L}\p{M}\p{N}]+$/u;
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

/** The separable verbs of a German text, in text order; none when the lexicon is empty. */
export function joinSeparableVerbs(text: string, lexicon: Lexicon): SeparableVerb[] {
  if (lexicon.headwordCount.de2en === 0) return [];
  const joined: SeparableVerb[] = [];
  let clause: string[] = [];
  const closeClause = () => {
    const last = clause.at(-1);
    if (clause.length >= 3 && last !== undefined && PARTICLES.has(last)) {
      const verb = findVerb(clause.slice(0, -1), last, lexicon);
      if (verb !== undefined) joined.push(verb);
    }
    clause = [];
  };
  for (const token of text.normalize("NFC").match(TOKEN) ?? []) {
    if (!WORD.test(token)) {
      closeClause();
      continue;
    }
    // A particle is written lower-case; a capitalised "AB" or "An" is a name or a sentence's start.
    clause.push(
      PARTICLES.has(token.toLowerCase()) && token !== token.toLowerCase() ? "" : token.toLowerCase(),
    );
  }
  closeClause();
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
