import {
  CallToolRequestParamsSchema,
  type CallToolResult,
  GetPromptRequestParamsSchema,
  InitializeRequestParamsSchema,
  type InitializeResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { authenticateCaller } from "./authenticate-caller.js";
import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidParams, JsonRpcError } from "./json-rpc-error.js";
import { renderPrompt } from "./prompts/prompt-definition.js";
import { PROMPTS, PROMPTS_BY_NAME } from "./prompts/prompt-list.js";
import { PROTOCOL_VERSION, SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from "./server-info.js";
import type { ToolContext } from "./tools/tool-definition.js";
import { TOOLS, TOOLS_BY_NAME } from "./tools/tool-list.js";

export interface RequestContext extends ToolContext {
  /** The service version for serverInfo. */
  readonly version: string;
  /** Records one call of a known tool (metrics): ok, tool_error (isError result) or error (JSON-RPC error). */
  readonly recordToolCall?: (tool: string, outcome: "ok" | "tool_error" | "error", seconds: number) => void;
}

/** Params checked against the SDK's schema for the method (-32602 naming the first bad field). */
function parseParams<S extends z.ZodType>(schema: S, params: unknown, method: string): z.output<S> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = issue?.path.map(String).join(".") || undefined;
  throw invalidParams(
    `Invalid params for ${method}: ${field ? `${field}: ` : ""}${issue?.message ?? "invalid"}`,
    field,
  );
}

/**
 * One JSON-RPC request → its result. Every path authenticates with core exactly once: tools/call
 * through the tool's own core call, everything else through authenticateCaller (before any
 * -32601/-32602, so a caller without a valid token always learns 401 first).
 */
export async function handleRequest(
  method: string,
  params: unknown,
  context: RequestContext,
): Promise<Record<string, unknown>> {
  if (method === "tools/call") {
    let run: (context: ToolContext) => Promise<CallToolResult>;
    let toolName: string;
    const started = performance.now();
    try {
      const { name, arguments: args } = parseParams(CallToolRequestParamsSchema, params, method);
      const tool = TOOLS_BY_NAME.get(name);
      // MCP 2025-06-18 "Error Handling": an unknown tool is -32602 (spec: "unknown tool").
      if (!tool) throw invalidParams(`Unknown tool: ${name}. tools/list names the available tools.`, "name");
      toolName = tool.name;
      run = tool.prepare(args);
    } catch (error) {
      await authenticateCaller(context);
      throw error;
    }
    let outcome: "ok" | "tool_error" | "error" = "error";
    try {
      const result = await run(context);
      outcome = result.isError ? "tool_error" : "ok";
      return result;
    } finally {
      context.recordToolCall?.(toolName, outcome, (performance.now() - started) / 1000);
    }
  }

  await authenticateCaller(context);
  // MCP params are always by name; JSON-RPC's by-position arrays have no meaning here.
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw invalidParams(`Invalid params for ${method}: params must be an object`);
  }
  switch (method) {
    case "initialize": {
      parseParams(InitializeRequestParamsSchema, params, method);
      // Lifecycle: a server answers with the version it speaks when it cannot take the client's;
      // this server speaks only 2025-06-18 (spec "MCP protocol version").
      const result: InitializeResult = {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
        serverInfo: { name: SERVER_NAME, title: SERVER_TITLE, version: context.version },
        instructions: SERVER_INSTRUCTIONS,
      };
      return result;
    }
    case "ping":
      return {};
    case "tools/list":
      // All tools fit one page; a cursor, if sent, is ignored and no nextCursor is returned. The
      // order is TOOLS' (fixed, documented), the listings built once at start: every answer is equal.
      return { tools: TOOLS.map((t) => t.listing) };
    case "prompts/list":
      return { prompts: PROMPTS.map((p) => p.listing) };
    case "prompts/get": {
      const { name, arguments: args } = parseParams(GetPromptRequestParamsSchema, params, method);
      const prompt = PROMPTS_BY_NAME.get(name);
      if (!prompt)
        throw invalidParams(`Unknown prompt: ${name}. prompts/list names the available prompts.`, "name");
      return renderPrompt(prompt, args);
    }
    default:
      throw new JsonRpcError(JSON_RPC_CODES.methodNotFound, `Method not found: ${method}`);
  }
}
