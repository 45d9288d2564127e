/**
 * Turns one FreeDict translation line ("Abwehr <fem>, Verteidigung <fem> [sport]", "to run <v>",
 * "sich jdm. stellen <v, refl>") into plain search terms ("abwehr", "verteidigung", "run", "stellen").
 * Grammar notes, domain labels, parentheticals, articles, placeholders (etw., sb.) and the English
 * infinitive "to" carry no meaning for retrieval and would only pull matches towards function words.
 */
import type { LexiconLanguage } from "./lexicon.js";

/** Longer pieces are explanations ("person or thing that…"), not translations. */
const MAX_WORDS_PER_TRANSLATION = 4;

const ARTICLES: Readonly<Record<LexiconLanguage, ReadonlySet<string>>> = {
  de: new Set(["der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines"]),
  en: new Set(["the", "a", "an", "to"]),
};

/** Placeholders for an object or subject ("jdm. etw. geben", "give sb. sth.") and reflexive markers. */
const PLACEHOLDERS = new Set([
  "etw",
  "etw.",
  "jd",
  "jd.",
  "jdn",
  "jdn.",
  "jdm",
  "jdm.",
  "jds",
  "jds.",
  "sich",
  "sb",
  "sb.",
  "sb's",
  "sth",
  "sth.",
  "sth's",
  "one's",
  "oneself",
  "someone",
  "something",
  "s.o.",
  "s.th.",
]);

const GROUP_PATTERNS = new Map<string, RegExp>([
  ["[", /\[[^[\]]*\]/g],
  ["<", /<[^<>]*>/g],
  ["{", /\{[^{}]*\}/g],
  ["(", /\([^()]*\)/g],
]);

/** Removes bracketed groups of one kind, innermost first, so nested notes disappear completely. */
function stripGroups(text: string, open: "[" | "<" | "{" | "("): string {
  const pattern = GROUP_PATTERNS.get(open);
  if (pattern === undefined || !text.includes(open)) return text;
  let previous = "";
  let current = text;
  while (current !== previous) {
    previous = current;
    current = current.replace(pattern, " ");
  }
  return current;
}

const IPA = /\/[^/,;]*[ˈˌːɪʊəɛɔæʃʒθðŋɹɾ][^/,;]*\//gu;
const NOISE = /[…"“”„«»]|\.\.\./g;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

function cleanPiece(piece: string, language: LexiconLanguage): string | undefined {
  const words = piece
    .replace(NOISE, " ")
    .split(/\s+/)
    .filter((word) => word.length > 0 && !PLACEHOLDERS.has(word.toLowerCase()));
  const articles = ARTICLES[language];
  while (words.length > 1 && articles.has(words[0]?.toLowerCase() ?? "")) words.shift();
  if (words.length === 0 || words.length > MAX_WORDS_PER_TRANSLATION) return undefined;
  const cleaned = words.join(" ").toLowerCase().replace(EDGE_PUNCTUATION, "");
  return cleaned.length > 0 ? cleaned : undefined;
}

/** Cleans one translation line into distinct terms, in the dictionary's order (first = most common sense). */
export function cleanTranslationLine(line: string, language: LexiconLanguage): string[] {
  let text = line;
  text = stripGroups(text, "[");
  text = stripGroups(text, "<");
  text = stripGroups(text, "{");
  text = stripGroups(text, "(");
  // IPA transcriptions (/ˈʊnt/) sometimes follow a translation; they contain no letters we can match on.
  if (text.includes("/")) text = text.replace(IPA, " ");
  const terms: string[] = [];
  for (const piece of text.split(/[,;]/)) {
    // "gehen/laufen" lists alternatives; a slash inside a phrase ("reach a place/as far as") is a paraphrase.
    const alternatives = /\s/.test(piece.trim()) ? [piece] : piece.split("/");
    for (const alternative of alternatives) {
      const term = cleanPiece(alternative, language);
      if (term !== undefined && !terms.includes(term)) terms.push(term);
    }
  }
  return terms;
}

/**
 * The headword of an entry's first line ("gehen /ɡˈeːən/ <v>", "tell sb. sth. (told, told) <v>") as a
 * clean term ("gehen", "tell"), or "" when nothing is left.
 */
export function cleanHeadwordLine(line: string, language: LexiconLanguage): string {
  // The pronunciation (" /…/") ends the headword; only what precedes it can hold notes.
  const ipaStart = line.indexOf(" /");
  const head = ipaStart < 0 ? line : line.slice(0, ipaStart);
  return cleanPiece(stripGroups(stripGroups(stripGroups(head, "("), "<"), "["), language) ?? "";
}
