/**
 * One FreeDict entry as dictd serves it:
 *
 *   gehen /ɡˈeːən/ <v, intr>                    ← headword, pronunciation, grammar
 *   go <v>                                      ← the translations (always the second line)
 *         Note: …                               ← usage notes
 *         "Lass uns gehen!"  - Let's go!        ← examples: source sentence, then its translation
 *      Synonyms: {…}    see: {…}                ← cross references
 */
import { cleanHeadwordLine, cleanTranslationLine } from "./clean-translation.js";
import type { LexiconLanguage } from "./lexicon.js";

export interface FreedictExample {
  readonly source: string;
  readonly target: string;
}

export interface FreedictEntry {
  readonly headword: string;
  readonly translations: readonly string[];
  readonly examples: readonly FreedictExample[];
  /** Inflected forms of the headword the entry names (irregular English verbs, German verb forms). */
  readonly inflectedForms: readonly string[];
}

const EXAMPLE_LINE = /^\s*"(.+)"\s+-\s+(.+)$/;
/** English headlines list irregular forms with an empty grammar note: "run /ɹˈʌn/ (ran /ɹˈan/ <>, …)". */
const ENGLISH_FORMS = /\(([^()]*<>[^()]*)\)/;
const ENGLISH_FORM = /([\p{L}'-]+) \/[^/]*\/ <>/gu;
/** German cross references name a verb's finite forms with their pronoun: "{ich/er/sie ging}". */
const GERMAN_FORM = /\{(?:ich\/er\/sie|er\/sie|wir\/sie|ich|du|er\/sie\/es|es) ([\p{L}]+)\}/gu;

function inflectedFormsOf(headline: string, rest: string, sourceLanguage: LexiconLanguage): string[] {
  const forms = new Set<string>();
  if (sourceLanguage === "en") {
    const list = ENGLISH_FORMS.exec(headline)?.[1];
    if (list !== undefined)
      for (const match of list.matchAll(ENGLISH_FORM)) forms.add((match[1] ?? "").toLowerCase());
  } else if (rest.includes("{")) {
    for (const match of rest.matchAll(GERMAN_FORM)) forms.add((match[1] ?? "").toLowerCase());
  }
  forms.delete("");
  return [...forms];
}

export function parseFreedictEntry(
  text: string,
  sourceLanguage: LexiconLanguage,
  targetLanguage: LexiconLanguage,
): FreedictEntry {
  const firstBreak = text.indexOf("\n");
  const secondBreak = firstBreak < 0 ? -1 : text.indexOf("\n", firstBreak + 1);
  const headline = firstBreak < 0 ? text : text.slice(0, firstBreak);
  const headword = cleanHeadwordLine(headline, sourceLanguage);
  const translationLine =
    firstBreak < 0 ? "" : text.slice(firstBreak + 1, secondBreak < 0 ? undefined : secondBreak);
  const translations = cleanTranslationLine(translationLine, targetLanguage);
  const examples: FreedictExample[] = [];
  // Most entries have no examples; only split the rest of the entry when a quoted line can exist.
  if (secondBreak >= 0 && text.includes('"', secondBreak)) {
    for (const line of text.slice(secondBreak + 1).split("\n")) {
      const match = EXAMPLE_LINE.exec(line);
      if (match?.[1] !== undefined && match[2] !== undefined)
        examples.push({ source: match[1], target: match[2] });
    }
  }
  const rest = secondBreak < 0 ? "" : text.slice(secondBreak + 1);
  return {
    headword,
    translations,
    examples,
    inflectedForms: inflectedFormsOf(headline, rest, sourceLanguage),
  };
}
