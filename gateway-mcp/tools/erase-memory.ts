import { z } from "zod";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const eraseMemoryInput = z.strictObject({
  memory_id: z
    .string()
    .min(1)
    .describe(
      "UUID of any version of the memory to erase (memory_id from service_recall, service_list_recent or service_store_memory); every version of it goes.",
    ),
  confirm: z.boolean().optional().meta({
    default: false,
    description:
      "true only after the user has seen what will be erased and agreed. Without it nothing is erased: the answer says what would be. Not needed (and not enough) when the client can ask the user itself: the server then asks.",
  }),
});

export const eraseMemoryOutput = z.object({
  erased: z
    .boolean()
    .describe("True when the memory was erased; false when confirm was not true and nothing changed."),
  memory_id: z.string().describe("The id that was asked for."),
  title: z.string().describe("Title of the memory's newest version."),
  versions: z
    .number()
    .int()
    .describe("Versions of the memory (current and superseded) erased, or that would be."),
  chunks: z.number().int().describe("Their indexed passages erased, or that would be."),
  edges: z
    .number()
    .int()
    .describe("Relation rows to and from the memory erased, or that would be (each direction counts once)."),
});

/**
 * service_erase_memory (admin) → LifecycleService.EraseMemory, the erasure DELETE /api/v1/memories/{id}
 * runs (docs/erasure.md); issue 47, item 5. The user confirms it through the request's revision
 * (docs/decisions/0420):
 * - a client that declared form elicitation, on 2025-11-25 (elicitation on the response stream) or
 *   2026-07-28 (an input_required result, answered on the retry): a dry run names what would go,
 *   the user is asked, and only "accept" erases — `confirm` is not enough there, since the model
 *   sets arguments but only the user answers an elicitation;
 * - otherwise (2025-06-18, or no elicitation): `confirm: true` after the user agreed in the chat;
 *   without it core runs a dry run (same admin scope, tenant and not-found checks) and the tool
 *   answers an `isError` result — a refused precondition the model must see and act on (MCP
 *   "Error Handling", tool execution errors) — naming what would be erased.
 */
export const eraseMemoryTool = defineTool({
  name: "service_erase_memory",
  title: "Erase a memory permanently",
  description:
    "Permanently erase one memory from the workspace: every version of it (current and superseded), its indexed " +
    "passages and its relations in both directions. It cannot be undone and is not for correcting a fact " +
    "(use service_update_fact, which keeps the history). Only when the user explicitly asks to delete or forget something. " +
    "If the client can ask the user, the server asks for confirmation itself. Otherwise call it first without confirm: " +
    "nothing is erased, and the answer names the memory (title, versions, relations) — show that to the user, and only " +
    "after they agree call again with the same memory_id and confirm: true. Needs a token with the admin scope.",
  input: eraseMemoryInput,
  output: eraseMemoryOutput,
  // A repeat removes nothing more (the id then names nothing: not found), so idempotent.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.erase],
  async call(args, { clients, callOptions, confirmation }) {
    const erase = async (dryRun: boolean) => {
      const response = await clients.lifecycle.eraseMemory({ id: args.memory_id, dryRun }, callOptions);
      const structured = {
        erased: response.erased,
        memory_id: args.memory_id,
        title: response.title,
        versions: response.versions,
        chunks: response.chunks,
        edges: response.edges,
      };
      const what = `"${response.title}" (${response.versions} version${response.versions === 1 ? "" : "s"}, ${response.chunks} indexed passage${response.chunks === 1 ? "" : "s"}, ${response.edges} relation row${response.edges === 1 ? "" : "s"})`;
      return { structured, what };
    };
    if (confirmation) {
      const preview = await erase(true);
      const answer = await confirmation.ask({
        subject: `service_erase_memory:${args.memory_id}`,
        message: `Permanently erase the memory ${preview.what}? It cannot be undone.`,
      });
      if (answer !== "accept") {
        return {
          structured: preview.structured,
          isError: true,
          note: `Not erased: the user ${answer === "decline" ? "declined" : "did not answer"} the confirmation for the memory ${preview.what}. Do not retry unless the user asks again.`,
        };
      }
      const done = await erase(false);
      return { structured: done.structured, note: `Erased the memory ${done.what} permanently.` };
    }
    const confirmed = args.confirm === true;
    const { structured, what } = await erase(!confirmed);
    if (!confirmed) {
      return {
        structured,
        isError: true,
        note:
          `Not erased: confirm was not true. This would permanently erase the memory ${what}. ` +
          "Ask the user whether to erase it; only if they agree, call service_erase_memory again with the same memory_id and confirm: true.",
      };
    }
    return { structured, note: `Erased the memory ${what} permanently.` };
  },
});
