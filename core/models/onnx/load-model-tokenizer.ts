import { join } from "node:path";
import type { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import type { Tokenizer } from "../embedding-provider.js";
import { ProviderError } from "../provider-error.js";
import { isRecord, readJsonFile } from "../read-json-file.js";

/** Model input for one text (or text pair): token ids with special tokens, and their segment ids. */
export interface EncodedInput {
  readonly ids: readonly number[];
  readonly typeIds: readonly number[];
}

/** The model's own tokenizer from its tokenizer.json, run offline by @huggingface/tokenizers. */
export interface ModelTokenizer extends Tokenizer {
  readonly padId: number;
  /** Special tokens added, content truncated so the whole sequence has at most maxLength tokens. */
  encode(text: string, maxLength: number): EncodedInput;
  /** Pair encoding for cross-encoders; truncates the longer side first (Hugging Face "longest_first"). */
  encodePair(first: string, second: string, maxLength: number): EncodedInput;
}

/** What @huggingface/tokenizers' post-processors return (not exported by the package). */
interface PostProcessed {
  readonly tokens: string[];
  readonly tokens_pair?: string[] | null;
  readonly token_type_ids?: number[];
}

interface Processed {
  readonly tokens: string[];
  readonly typeIds: number[];
}

export async function loadModelTokenizer(modelDir: string, provider: string): Promise<ModelTokenizer> {
  const json = await readJsonFile(join(modelDir, "tokenizer.json"), provider);
  if (!isRecord(json)) {
    throw new ProviderError(`${modelDir} has no tokenizer.json`, { reason: "model_invalid", provider });
  }
  const config = await readJsonFile(join(modelDir, "tokenizer_config.json"), provider);
  // Loaded with the first ONNX model: the built-in models never need it.
  const { Tokenizer } = await import("@huggingface/tokenizers");
  let hf: HfTokenizer;
  try {
    hf = new Tokenizer(json, isRecord(config) ? config : {});
  } catch (error) {
    throw new ProviderError(`tokenizer.json in ${modelDir} is not supported: ${String(error)}`, {
      reason: "model_invalid",
      provider,
    });
  }

  const unkId = hf.model?.unk_token_id ?? 0;
  const padId = padTokenId(hf, json, config);
  const pieces = (text: string): string[] => hf.tokenize(text, { add_special_tokens: false });
  const postProcess = (first: string[], second: string[] | null): Processed => {
    const processor = hf.post_processor;
    const output: PostProcessed =
      processor === null
        ? { tokens: first, tokens_pair: second }
        : processor.post_process(first, second, true);
    // Some processors (ByteLevel) hand the pair back separately and without segment ids.
    const tokens = output.tokens_pair ? [...output.tokens, ...output.tokens_pair] : output.tokens;
    const typeIds =
      output.token_type_ids?.length === tokens.length
        ? output.token_type_ids
        : tokens.map((_, i) => (i < output.tokens.length ? 0 : 1));
    return { tokens, typeIds };
  };
  const toInput = ({ tokens, typeIds }: Processed): EncodedInput => ({
    ids: tokens.map((token) => hf.token_to_id(token) ?? unkId),
    typeIds,
  });
  const specialsSingle = postProcess([], null).tokens.length;
  const specialsPair = postProcess([], []).tokens.length;

  return {
    padId,
    countTokens: (text) => pieces(text).length,
    encode(text, maxLength) {
      const budget = contentBudget(maxLength, specialsSingle);
      return toInput(postProcess(pieces(text).slice(0, budget), null));
    },
    encodePair(first, second, maxLength) {
      const a = pieces(first);
      const b = pieces(second);
      const budget = contentBudget(maxLength, specialsPair);
      let keepA = a.length;
      let keepB = b.length;
      // Longest first: drop from whichever side is longer; a short query survives a long passage.
      const excess = Math.max(0, keepA + keepB - budget);
      const fromLonger = Math.min(excess, Math.abs(keepA - keepB));
      if (keepA > keepB) keepA -= fromLonger;
      else keepB -= fromLonger;
      const rest = excess - fromLonger;
      keepA -= Math.ceil(rest / 2);
      keepB -= Math.floor(rest / 2);
      return toInput(postProcess(a.slice(0, keepA), b.slice(0, keepB)));
    },
  };
}

function contentBudget(maxLength: number, specials: number): number {
  const budget = maxLength - specials;
  if (budget < 1)
    throw new RangeError(`maxLength ${maxLength} leaves no room besides ${specials} special tokens`);
  return budget;
}

/** Padding id: tokenizer.json's padding section, else tokenizer_config's pad_token, else [PAD] / <pad>, else 0. */
function padTokenId(hf: HfTokenizer, json: Record<string, unknown>, config: unknown): number {
  const padding = json.padding;
  if (isRecord(padding) && typeof padding.pad_id === "number") return padding.pad_id;
  const configured = isRecord(config) ? config.pad_token : undefined;
  const name =
    typeof configured === "string" ? configured : isRecord(configured) ? configured.content : undefined;
  if (typeof name === "string") {
    const id = hf.token_to_id(name);
    if (id !== undefined) return id;
  }
  return hf.token_to_id("[PAD]") ?? hf.token_to_id("<pad>") ?? 0;
}
