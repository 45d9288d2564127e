import { readFile } from "node:fs/promises";
import { ProviderError } from "./provider-error.js";

/** Parsed JSON of a file, or undefined when it does not exist; a present but broken file is an error. */
export async function readJsonFile(path: string, provider: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new ProviderError(`cannot read ${path}: ${String(error)}`, { reason: "model_invalid", provider });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderError(`${path} is not valid JSON`, { reason: "model_invalid", provider });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNotFound(error: unknown): boolean {
  return isRecord(error) && error.code === "ENOENT";
}
