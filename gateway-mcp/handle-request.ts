import {
  CallToolRequestParamsSchema,
  type CallToolResult,
  GetPromptRequestParamsSchema,
  InitializeRequestParamsSchema,
  type InitializeResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { GetSessionResponse } from "../gen/memory/v1/tenancy_service_pb.js";
import { authenticateCaller } from "./authenticate-caller.js";
import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidParams, JsonRpcError } from "./json-rpc-error.js";
import { renderPrompt } from "./prompts/prompt-definition.js";
import { PROMPTS, PROMPTS_BY_NAME } from "./prompts/prompt-list.js";
import {
  BASELINE_REVISION,
  hasIcons,
  MODERN_REVISION,
  negotiateLegacyRevision,
  type Revision,
  SUPPORTED_REVISIONS,
} from "./protocol-revisions.js";
import { SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_TITLE } from "./server-info.js";
import type { ToolContext } from "./tools/tool-definition.js";
import { TOOLS, TOOLS_BY_NAME } from "./tools/tool-list.js";
import { InputRequired } from "./user-confirmation.js";

export interface RequestContext extends ToolContext {
  /** The service version for serverInfo. */
  readonly version: string;
  /**
   * The revision the request is framed in (protocol-revisions.ts): 2026-07-28 when it carries the
   * per-request `_meta`, else the MCP-Protocol-Version header's 2025 revision (absent: 2025-06-18).
   */
  readonly revision?: Revision;
  /** Told who the caller is when the request authenticated through GetSession (initialize binds its session id). */
  readonly onAuthenticated?: (caller: GetSessionResponse) => void;
  /**
   * Records one call of a known tool (metrics): ok, tool_error (isError result), input_required
   * (2026-07-28: the user is being asked) or error (JSON-RPC error).
   */
  readonly recordToolCall?: (
    tool: string,
    outcome: "ok" | "tool_error" | "input_required" | "error",
    seconds: number,
  ) => void;
}

/** Capabilities as initialize (2025) and server/discover (2026-07-28) state them. */
const CAPABILITIES = { tools: { listChanged: false }, prompts: { listChanged: false } } as const;

/**
 * 2026-07-28 "Caching": list results and server/discover carry a freshness hint. The lists are
 * the same for every caller ("public") and change only with a deploy of a new version; an hour
 * bounds how long a client keeps an old list after one.
 */
export const LIST_TTL_MS = 3_600_000;

/** Methods 2026-07-28 removed (the handshake and ping): unknown there, -32601. */
const LEGACY_ONLY_METHODS: ReadonlySet<string> = new Set(["initialize", "ping"]);

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
    let outcome: "ok" | "tool_error" | "input_required" | "error" = "error";
    try {
      const result = await run(context);
      outcome = result.isError ? "tool_error" : "ok";
      return result;
    } catch (error) {
      // 2026-07-28 multi round-trip: the tool asked the user; the call ends with the question.
      if (!(error instanceof InputRequired)) throw error;
      outcome = "input_required";
      return error.toResult();
    } finally {
      context.recordToolCall?.(toolName, outcome, (performance.now() - started) / 1000);
    }
  }

  context.onAuthenticated?.(await authenticateCaller(context));
  // MCP params are always by name; JSON-RPC's by-position arrays have no meaning here.
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    throw invalidParams(`Invalid params for ${method}: params must be an object`);
  }
  const revision = context.revision ?? BASELINE_REVISION;
  if (revision === MODERN_REVISION && LEGACY_ONLY_METHODS.has(method)) {
    throw new JsonRpcError(
      JSON_RPC_CODES.methodNotFound,
      `Method not found: ${method} does not exist in revision ${MODERN_REVISION} (stateless: no handshake, no ping)`,
    );
  }
  switch (method) {
    case "initialize": {
      const { protocolVersion } = parseParams(InitializeRequestParamsSchema, params, method);
      // Lifecycle "Version Negotiation": the client's revision if the server speaks it, else one
      // it does (protocol-revisions.ts); 2025-06-18 stays the answer for older clients.
      const result: InitializeResult = {
        protocolVersion: negotiateLegacyRevision(protocolVersion),
        capabilities: CAPABILITIES,
        serverInfo: { name: SERVER_NAME, title: SERVER_TITLE, version: context.version },
        instructions: SERVER_INSTRUCTIONS,
      };
      return result;
    }
    case "server/discover":
      // 2026-07-28 "Discovery": every revision this endpoint speaks, newest first.
      return {
        supportedVersions: [...SUPPORTED_REVISIONS],
        capabilities: CAPABILITIES,
        instructions: SERVER_INSTRUCTIONS,
      };
    case "ping":
      return {};
    case "tools/list":
      // All tools fit one page; a cursor, if sent, is ignored and no nextCursor is returned. The
      // order is TOOLS' (fixed, documented), the listings built once at start: every answer is equal
      // (2026-07-28 "deterministic order"). Icons from 2025-11-25 on.
      return { tools: TOOLS.map((t) => (hasIcons(revision) ? t.listingWithIcons : t.listing)) };
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

/** Methods whose 2026-07-28 result is cacheable ("Caching": server/discover and the lists). */
const CACHEABLE_METHODS: ReadonlySet<string> = new Set(["server/discover", "tools/list", "prompts/list"]);

/**
 * A result as 2026-07-28 frames it: `resultType` ("complete" unless the tool asked the user), the
 * server's identity in `_meta` (per-response protocol fields), cache hints on cacheable results.
 * Results of the 2025 revisions are sent as they are.
 */
export function frameResult(
  method: string,
  result: Record<string, unknown>,
  revision: Revision,
  version: string,
): Record<string, unknown> {
  if (revision !== MODERN_REVISION) return result;
  const meta =
    typeof result._meta === "object" && result._meta !== null
      ? (result._meta as Record<string, unknown>)
      : {};
  const complete = result.resultType === undefined || result.resultType === "complete";
  return {
    ...result,
    resultType: complete ? "complete" : result.resultType,
    ...(complete && CACHEABLE_METHODS.has(method) ? { ttlMs: LIST_TTL_MS, cacheScope: "public" } : {}),
    _meta: {
      ...meta,
      "io.modelcontextprotocol/serverInfo": { name: SERVER_NAME, title: SERVER_TITLE, version },
    },
  };
}
