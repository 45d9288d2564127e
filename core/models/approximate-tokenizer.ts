import type { Tokenizer } from "./embedding-provider.js";

/**
 * A stand-in for a model tokenizer we cannot run locally (remote HTTP providers). Counts each run of
 * letters/digits as ceil(length / 4) tokens and every other non-space character as one token — the usual
 * "four characters per token" rule for English BPE, applied per word so short words still cost a token.
 * Subword tokenizers of multilingual models (XLM-R/bge-m3, e5) split German text into about 1 token per
 * 3.5–5 characters, so this tends to over-count slightly: chunks come out a little smaller than
 * `maxTokens`, never larger than the model accepts. It is additive across whitespace, which the chunker's
 * estimates rely on.
 */
export const approximateTokenizer: Tokenizer = {
  countTokens(text: string): number {
    let tokens = 0;
    for (const [run] of text.matchAll(/[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu)) {
      tokens += Math.ceil(run.length / 4);
    }
    return tokens;
  },
};
