import { z } from "zod";
import { JSON_RPC_CODES } from "../json-rpc-codes.js";
import { JsonRpcError } from "../json-rpc-error.js";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const healthInput = z.strictObject({});

export const healthOutput = z.object({
  status: z.string().describe('"ok", or "degraded" when an optional part (the re-ranker) is missing.'),
  service: z.string(),
  version: z.string(),
});

/**
 * Spec "MCP tools": service_health (any token) → StatusService.GetStatus; `{status, service,
 * version}`, no tenant data. Spec "HTTP status codes": 503 when the memory service, database or
 * graph is unavailable — on MCP the -32006 error, naming the components that are down.
 */
export const healthTool = defineTool({
  name: "service_health",
  title: "Service health",
  description:
    "Check whether the memory service and its database are up. Needs no particular scope and returns no workspace data. " +
    "Call it when other memory tools fail unexpectedly, to tell an outage from a problem with the request.",
  input: healthInput,
  output: healthOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.health],
  async call(_args, { clients, callOptions }) {
    const response = await clients.status.getStatus({}, callOptions);
    if (response.status === "down") {
      const down = response.components.filter((c) => c.status === "down").map((c) => c.name);
      throw new JsonRpcError(
        JSON_RPC_CODES.unavailable,
        `memory service unavailable: ${down.join(", ")} down`,
        {
          data: { reason: "unavailable", status: response.status, down },
        },
      );
    }
    return { structured: { status: response.status, service: response.service, version: response.version } };
  },
});
