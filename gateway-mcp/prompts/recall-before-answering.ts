import type { PromptDefinition } from "./prompt-definition.js";
import { userMessage } from "./prompt-definition.js";

/** Recall context for a question before answering it (issue: prompts). */
export const recallBeforeAnsweringPrompt: PromptDefinition = {
  listing: {
    name: "recall_before_answering",
    title: "Answer from memory",
    description:
      "Look up what memory holds about a question before answering it, and answer from those memories.",
    arguments: [
      { name: "question", description: "The question or topic to answer.", required: true },
      {
        name: "as_of",
        description: "Optional ISO 8601 instant: answer as things were then.",
        required: false,
      },
    ],
  },
  render({ question = "", as_of: asOf }) {
    const search = asOf
      ? `call service_recall_at_time with query ${JSON.stringify(question)} and as_of ${JSON.stringify(asOf)}`
      : `call service_recall with query ${JSON.stringify(question)}`;
    return {
      description: `Answer "${question}" from memory`,
      messages: [
        userMessage(
          [
            `Before answering, ${search}. If the first search finds little, try once more with other words (synonyms, names, German or English).`,
            "Answer from the relevant hits and name the memories you relied on by title. Ignore hits that do not bear on the question.",
            "If memory holds nothing relevant, say so plainly and answer from general knowledge only if that is clearly marked.",
            "If hits contradict each other, prefer the newer version and mention the conflict; service_list_relations shows SUPERSEDES links.",
            "",
            `Question: ${question}`,
          ].join("\n"),
        ),
      ],
    };
  },
};
