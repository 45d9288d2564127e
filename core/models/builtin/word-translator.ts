/**
 * Translates one word into stems of the other language with weights, using the lexicon (with its lemma
 * and inflection fallbacks, see find-translations.ts), then German decompounding
 * ("Verteidigungsministerin" → verteidigung + ministerin). A word nothing matches (a name, a number,
 * an English loan word in German text) is its own translation: "Panthers" stays panthers in both languages.
 */

import { decompoundWithLexicon } from "../lexicon/decompound-german.js";
import { findTranslations } from "../lexicon/find-translations.js";
import type { Lexicon, LexiconLanguage, Translation, TranslationDirection } from "../lexicon/lexicon.js";
import { stemWord } from "../lexicon/stem-word.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import type { BuiltinEmbedderSettings } from "./builtin-embedder-settings.js";
import { tokenizeWords } from "./tokenize-words.js";
import type { WordIdf } from "./word-idf.js";

export interface TranslatedStem {
  readonly stem: string;
  /** Share of the source word's meaning; the shares of one word sum to 1. */
  readonly share: number;
  /** Idf of the translation in its own language (the most informative word with this stem). */
  readonly idf: number;
}

export interface WordTranslation {
  readonly stems: readonly TranslatedStem[];
  /** How the translation was found, for the evaluation's diagnostics. */
  readonly via: "lexicon" | "inflection" | "compound" | "identity";
}

export interface WordTranslator {
  translate(word: string, from: LexiconLanguage): WordTranslation;
}

type Settings = Pick<
  BuiltinEmbedderSettings,
  "maxTranslations" | "translationPriorExponent" | "cooccurrenceExponent" | "cognateBoost"
>;

export function createWordTranslator(lexicon: Lexicon, idf: WordIdf, settings: Settings): WordTranslator {
  const ranking = {
    priorExponent: settings.translationPriorExponent,
    cooccurrenceExponent: settings.cooccurrenceExponent,
    cognateBoost: settings.cognateBoost,
  };

  /** Stems of the translations; a phrase's stop words are dropped ("be meant to" → meant), a lone one kept. */
  function toStems(entries: readonly Translation[], to: LexiconLanguage) {
    const byStem = new Map<string, { share: number; idf: number }>();
    for (const { text, weight } of entries) {
      const all = tokenizeWords(text);
      const content = all.filter((word) => !STOPWORDS[to].has(word));
      const words = content.length > 0 ? content : all;
      for (const word of words) {
        const stem = stemWord(word, to);
        const current = byStem.get(stem);
        const share = weight / words.length;
        const wordIdf = idf(word, to);
        if (current === undefined) byStem.set(stem, { share, idf: wordIdf });
        else {
          current.share += share;
          current.idf = Math.max(current.idf, wordIdf);
        }
      }
    }
    return byStem;
  }

  function best(byStem: ReadonlyMap<string, { share: number; idf: number }>): TranslatedStem[] {
    const kept = [...byStem]
      .sort((left, right) => right[1].share - left[1].share || (left[0] < right[0] ? -1 : 1))
      .slice(0, settings.maxTranslations);
    const total = kept.reduce((sum, [, { share }]) => sum + share, 0);
    return kept.map(([stem, value]) => ({ ...value, stem, share: value.share / total }));
  }

  function translateWithLexicon(word: string, from: LexiconLanguage, to: LexiconLanguage) {
    const direction: TranslationDirection = from === "de" ? "de2en" : "en2de";
    const found = findTranslations(lexicon, word, direction, ranking);
    if (found !== undefined) {
      const stems = best(toStems(found.translations, to));
      if (stems.length > 0) return { stems, via: found.via };
    }
    if (from !== "de" || word.includes(" ")) return undefined;
    const parts = decompoundWithLexicon(word, lexicon);
    if (parts === undefined) return undefined;
    const combined = new Map<string, { share: number; idf: number }>();
    for (const part of parts) {
      for (const translated of best(
        toStems(findTranslations(lexicon, part, direction, ranking)?.translations ?? [], to),
      )) {
        const current = combined.get(translated.stem);
        if (current === undefined)
          combined.set(translated.stem, { ...translated, share: translated.share / parts.length });
        else {
          current.share += translated.share / parts.length;
          current.idf = Math.max(current.idf, translated.idf);
        }
      }
    }
    return combined.size > 0 ? { stems: best(combined), via: "compound" as const } : undefined;
  }

  /** Not remembered here: the embedder keeps what it derives per word (word-facts.ts). */
  function translate(word: string, from: LexiconLanguage): WordTranslation {
    const to: LexiconLanguage = from === "de" ? "en" : "de";
    // Keeping a share for the word itself whenever it has translations was measured and hurt every
    // cross-lingual set: most words are not shared, so the share only diluted the real translations.
    return (
      translateWithLexicon(word, from, to) ?? {
        stems: [{ stem: stemWord(word, to), share: 1, idf: idf(word, to) }],
        via: "identity",
      }
    );
  }

  return { translate };
}
