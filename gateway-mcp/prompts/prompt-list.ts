import { correctOutdatedFactPrompt } from "./correct-outdated-fact.js";
import type { PromptDefinition } from "./prompt-definition.js";
import { recallBeforeAnsweringPrompt } from "./recall-before-answering.js";
import { saveConversationFactsPrompt } from "./save-conversation-facts.js";

export const PROMPTS: readonly PromptDefinition[] = [
  recallBeforeAnsweringPrompt,
  saveConversationFactsPrompt,
  correctOutdatedFactPrompt,
];

export const PROMPTS_BY_NAME: ReadonlyMap<string, PromptDefinition> = new Map(
  PROMPTS.map((p) => [p.listing.name, p]),
);
