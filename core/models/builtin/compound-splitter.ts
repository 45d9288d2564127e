import { createBoundedMemo } from "../../../lib/bounded-memo.js";
import { decompoundWithLexicon } from "../lexicon/decompound-german.js";
import type { Lexicon } from "../lexicon/lexicon.js";

/** The parts of a German compound in a passage ("geheimpfad" → geheim, pfad), or undefined. */
export type CompoundSplitter = (token: string) => readonly string[] | undefined;

/**
 * Splits passage words the way recall splits query words (decompound-german.ts: known dictionary
 * words, linking elements). Passages repeat a workspace's vocabulary and a split costs up to a few
 * hundred dictionary look-ups, so splits are kept (lib/bounded-memo.ts): frequent words stay.
 */
export function createCompoundSplitter(lexicon: Lexicon, capacity = 20_000): CompoundSplitter {
  const memo = createBoundedMemo<readonly string[] | null>(capacity);
  const split = (token: string) => decompoundWithLexicon(token, lexicon) ?? null;
  return (token) => memo.get(token, split) ?? undefined;
}
