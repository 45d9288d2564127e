import { access } from "node:fs/promises";
import { join } from "node:path";
import { ProviderError } from "../provider-error.js";
import { isRecord, readJsonFile } from "../read-json-file.js";

export type Pooling = "mean" | "cls" | "max";

/** What a sentence-transformers-style export directory says about how to run it. */
export interface ModelDirInfo {
  readonly modelPath: string;
  /** From 1_Pooling/config.json; mean when absent (the sentence-transformers default). */
  readonly pooling: Pooling;
  /** From sentence_bert_config.json's max_seq_length; 512 when absent. */
  readonly maxLength: number;
  /** From config_sentence_transformers.json's prompts ("query" / "passage"), when the export declares them. */
  readonly queryPrompt: string | undefined;
  readonly passagePrompt: string | undefined;
}

export const DEFAULT_MAX_LENGTH = 512;

/** Where exports put the graph: the directory itself (optimum-cli) or onnx/ (Hugging Face repositories). */
const MODEL_FILES = ["model.onnx", join("onnx", "model.onnx")];

export async function readModelDir(
  modelDir: string,
  modelFile: string | undefined,
  provider: string,
): Promise<ModelDirInfo> {
  const modelPath = await findModelFile(modelDir, modelFile, provider);
  const pooling = await readJsonFile(join(modelDir, "1_Pooling", "config.json"), provider);
  const bert = await readJsonFile(join(modelDir, "sentence_bert_config.json"), provider);
  const st = await readJsonFile(join(modelDir, "config_sentence_transformers.json"), provider);
  const prompts = isRecord(st) && isRecord(st.prompts) ? st.prompts : {};
  const maxLength = isRecord(bert) ? bert.max_seq_length : undefined;
  return {
    modelPath,
    pooling: poolingMode(pooling),
    maxLength:
      typeof maxLength === "number" && Number.isInteger(maxLength) && maxLength > 2
        ? maxLength
        : DEFAULT_MAX_LENGTH,
    queryPrompt: typeof prompts.query === "string" ? prompts.query : undefined,
    passagePrompt: typeof prompts.passage === "string" ? prompts.passage : undefined,
  };
}

function poolingMode(config: unknown): Pooling {
  if (!isRecord(config)) return "mean";
  if (config.pooling_mode_cls_token === true) return "cls";
  if (config.pooling_mode_max_tokens === true && config.pooling_mode_mean_tokens !== true) return "max";
  return "mean";
}

async function findModelFile(
  modelDir: string,
  modelFile: string | undefined,
  provider: string,
): Promise<string> {
  const candidates = modelFile === undefined ? MODEL_FILES : [modelFile];
  for (const candidate of candidates) {
    const path = join(modelDir, candidate);
    try {
      await access(path);
      return path;
    } catch {
      // try the next location
    }
  }
  throw new ProviderError(`no ONNX model in ${modelDir} (looked for ${candidates.join(", ")})`, {
    reason: "model_invalid",
    provider,
  });
}
