import type { PromptDefinition } from "./prompt-definition.js";
import { userMessage } from "./prompt-definition.js";

/** Save the durable facts of a conversation as memories (issue: prompts). */
export const saveConversationFactsPrompt: PromptDefinition = {
  listing: {
    name: "save_conversation_facts",
    title: "Save facts from this conversation",
    description:
      "Extract the durable facts, decisions and preferences from a conversation and store each as a memory, without duplicates.",
    arguments: [
      {
        name: "conversation",
        description: "The conversation or notes to extract from. Default: the conversation so far.",
        required: false,
      },
      {
        name: "focus",
        description: "Optional topic to limit extraction to, e.g. 'project Alpha'.",
        required: false,
      },
    ],
  },
  render({ conversation, focus }) {
    const source = conversation ? "the conversation below" : "our conversation so far";
    return {
      description: "Store the durable facts of a conversation",
      messages: [
        userMessage(
          [
            `Go through ${source} and pick out what is worth remembering in later conversations${focus ? `, limited to: ${focus}` : ""}:`,
            "facts about people, projects, clients and systems; decisions and their reasons; preferences; agreed next steps with owners and dates.",
            "Leave out small talk, passing remarks and anything only true for this moment.",
            "",
            "For each fact:",
            "1. Call service_recall with a short query for it. If an existing memory already says the same, skip it.",
            "   If an existing memory says something that is no longer true, call service_update_fact with its memory_id as target_id instead of storing a new one.",
            "2. Otherwise call service_store_memory with one self-contained fact per call: a specific title, content that makes sense without this conversation",
            "   (full names, dates, units), memory_type episodic for events and meetings, procedural for how-tos, semantic for everything else, and source 'conversation'.",
            "3. Where two stored facts are related (a task FOR_CLIENT a client, a person OWNS a task), call service_link with their memory_ids.",
            "",
            "Finish with a short list of what you stored, updated and linked.",
            ...(conversation ? ["", "Conversation:", conversation] : []),
          ].join("\n"),
        ),
      ],
    };
  },
};
