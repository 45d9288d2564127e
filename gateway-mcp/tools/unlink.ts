import { z } from "zod";
import { relationArguments } from "./relation-arguments.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const unlinkOutput = z.object({
  deleted: z.boolean().describe("True when the relation (and its inverse) existed and was removed."),
});

/** Spec "MCP tools": service_unlink (write) → GraphService.Unlink; removes the edge and its inverse (rule 4). */
export const unlinkTool = defineTool({
  name: "service_unlink",
  title: "Remove a relation",
  description:
    "Remove a typed relation between two memories (and its inverse), e.g. when a person no longer OWNS a task. " +
    "The memories themselves stay. Pass the same from_id, to_id and rel_type the relation was created with.",
  input: relationArguments,
  output: unlinkOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.unlink],
  async call(args, { clients, callOptions }) {
    const response = await clients.graph.unlink(
      { fromId: args.from_id, toId: args.to_id, relType: args.rel_type },
      callOptions,
    );
    return { structured: { deleted: response.deleted } };
  },
});
