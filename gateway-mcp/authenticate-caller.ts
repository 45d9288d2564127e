import type { GetSessionResponse } from "../gen/memory/v1/tenancy_service_pb.js";
import type { ToolContext } from "./tools/tool-definition.js";

/**
 * Spec "MCP endpoint": every POST needs a valid bearer token (401 otherwise). Core authenticates;
 * methods that call no core service of their own (initialize, tools/list, prompts/*, ping,
 * notifications, and tools/call answered -32602) ask it with TenancyService.GetSession, whose
 * requirement is "any" valid token. So each POST costs exactly one authenticated core call, and
 * core's per-token and per-IP limits count every MCP request once. Answers who the caller is
 * (workspace, token), which a 2025-11-25 session id is bound to (session-id.ts).
 */
export async function authenticateCaller({ clients, callOptions }: ToolContext): Promise<GetSessionResponse> {
  return clients.tenancy.getSession({}, callOptions);
}
