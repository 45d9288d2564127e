import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { invalidParams } from "../json-rpc-error.js";

/** One prompt: its prompts/list entry and how prompts/get fills it in. */
export interface PromptDefinition {
  readonly listing: Prompt;
  /** Arguments are strings (MCP prompts); required ones are checked before render is called. */
  render(args: Readonly<Record<string, string>>): GetPromptResult;
}

/** The text of one user message, as prompts/get returns it. */
export function userMessage(text: string): GetPromptResult["messages"][number] {
  return { role: "user", content: { type: "text", text } };
}

/** Checks prompts/get arguments against the listing (-32602), then renders. */
export function renderPrompt(prompt: PromptDefinition, args: unknown): GetPromptResult {
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    throw invalidParams("prompts/get: arguments must be an object of strings", "arguments");
  }
  const given: Record<string, string> = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    if (!(prompt.listing.arguments ?? []).some((a) => a.name === key)) {
      throw invalidParams(`prompts/get ${prompt.listing.name}: unknown argument ${key}`, key);
    }
    if (typeof value !== "string") {
      throw invalidParams(`prompts/get ${prompt.listing.name}: argument ${key} must be a string`, key);
    }
    given[key] = value;
  }
  for (const argument of prompt.listing.arguments ?? []) {
    if (argument.required && !given[argument.name]?.trim()) {
      throw invalidParams(
        `prompts/get ${prompt.listing.name}: argument ${argument.name} is required`,
        argument.name,
      );
    }
  }
  return prompt.render(given);
}
