import type { PromptDefinition } from "./prompt-definition.js";
import { userMessage } from "./prompt-definition.js";

/** Correct an outdated fact with service_update_fact, keeping its history (issue: prompts). */
export const correctOutdatedFactPrompt: PromptDefinition = {
  listing: {
    name: "correct_outdated_fact",
    title: "Correct an outdated fact",
    description:
      "Find the stored memory that is no longer true and replace it with a corrected version via service_update_fact; the old version stays as history.",
    arguments: [
      {
        name: "outdated",
        description: "What memory currently says, or what it is about (used to find it).",
        required: true,
      },
      { name: "correction", description: "What is true now.", required: true },
      { name: "reason", description: "Optional: why it changed.", required: false },
    ],
  },
  render({ outdated = "", correction = "", reason }) {
    return {
      description: "Correct an outdated fact",
      messages: [
        userMessage(
          [
            `1. Call service_recall with query ${JSON.stringify(outdated)} and find the memory that states the outdated fact.`,
            "   If several match, pick the one that is clearly about the same thing; if none does, tell me and stop instead of guessing.",
            "2. Call service_update_fact with that memory_id as target_id, a specific new_title, and as new_content the full corrected fact,",
            `   self-contained (not just the changed part), based on: ${JSON.stringify(correction)}.`,
            `   ${reason ? `Pass update_reason ${JSON.stringify(reason)}.` : "Pass a short update_reason if the reason is known."}`,
            "3. Confirm with the old and new memory ids. Do not store the correction with service_store_memory: update_fact keeps the history",
            "   (service_recall_at_time still finds the old version for earlier dates) and links both versions with SUPERSEDES.",
          ].join("\n"),
        ),
      ],
    };
  },
};
