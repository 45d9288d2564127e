import { access } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_DICTIONARY_DIRECTORY } from "../../core/models/lexicon/load-lexicon.js";

/** Whether Debian's FreeDict German↔English dictionaries are where the lexicon reads them. */
export async function dictionariesInstalled(): Promise<boolean> {
  try {
    await access(join(DEFAULT_DICTIONARY_DIRECTORY, "freedict-deu-eng.index"));
    await access(join(DEFAULT_DICTIONARY_DIRECTORY, "freedict-eng-deu.index"));
    return true;
  } catch {
    return false;
  }
}
