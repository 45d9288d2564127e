import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListToolsResult,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { TOOLS_BY_NAME } from "../../gateway-mcp/tools/tool-list.js";

/**
 * How a test connects, one per revision and transport mode the whole tool suite runs in:
 * - "json" / "sse": the 1.x SDK client as it is (it offers 2025-11-25), plain JSON or SSE answers;
 * - "2025-06-18": the same client speaking the spec's revision (its initialize asks for 2025-06-18,
 *   as a client released before 2025-11-25 does);
 * - "2026-07-28": the 2.x SDK client with `auto` negotiation (server/discover, then stateless requests).
 */
export type TransportMode = "json" | "sse" | "2025-06-18" | "2026-07-28";

/** The revision each mode must end up on. */
export const REVISION_OF_MODE: Readonly<Record<TransportMode, string>> = {
  json: "2025-11-25",
  sse: "2025-11-25",
  "2025-06-18": "2025-06-18",
  "2026-07-28": "2026-07-28",
};

/**
 * What the tool suite uses of a client, typed with the 1.x SDK's types; both SDK lines answer with
 * the same JSON, so the 2.x client's results are read through the same types.
 */
export interface SuiteClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  listTools(): Promise<ListToolsResult>;
  listPrompts(): Promise<ListPromptsResult>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult>;
  ping(): Promise<unknown>;
  getServerVersion(): Implementation | undefined;
  getServerCapabilities(): ServerCapabilities | undefined;
  getInstructions(): string | undefined;
}

export interface ConnectedClient {
  readonly client: SuiteClient;
  /** The negotiated revision. */
  readonly protocolVersion: string | undefined;
  /** Content types of the POST answers received, to prove which mode was used. */
  readonly answerTypes: string[];
  /** The POST bodies sent, to prove which framing was used. */
  readonly sentBodies: string[];
  close(): Promise<void>;
}

function recordingFetch(mode: TransportMode, answerTypes: string[], sentBodies: string[]) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    let body = init?.body;
    if (mode === "sse" && init?.method === "POST")
      headers.set("accept", "text/event-stream, application/json;q=0.5");
    if (mode === "2025-06-18" && typeof body === "string" && body.includes('"method":"initialize"')) {
      body = body.replace('"protocolVersion":"2025-11-25"', '"protocolVersion":"2025-06-18"');
    }
    if (typeof body === "string") sentBodies.push(body);
    const response = await fetch(url, { ...init, headers, ...(body === undefined ? {} : { body }) });
    if (init?.method === "POST") answerTypes.push(response.headers.get("content-type") ?? "");
    return response;
  };
}

/**
 * The official SDK client over its Streamable HTTP transport with a bearer token, as an MCP-capable
 * assistant connects. In "sse" mode the client says it prefers event streams (the SDK itself sends
 * both types with equal weight, which this server answers with JSON).
 */
export async function connectSdkClient(
  baseUrl: string,
  token: string,
  mode: TransportMode,
): Promise<ConnectedClient> {
  const answerTypes: string[] = [];
  const sentBodies: string[] = [];
  const url = new URL(`${baseUrl}/api/mcp/v1`);
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const fetchFn = recordingFetch(mode, answerTypes, sentBodies);
  if (mode === "2026-07-28") {
    const transport = new Transport2(url, { requestInit, fetch: fetchFn });
    const client = new Client2(
      { name: "memory-service-tests", version: "2.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(transport);
    await client.listTools();
    // One cast per method: the 2.x result types are the 1.x ones plus 2026-07-28 fields.
    const suite: SuiteClient = {
      callTool: async (params) => (await client.callTool(params)) as CallToolResult,
      listTools: async () => (await client.listTools()) as ListToolsResult,
      listPrompts: async () => (await client.listPrompts()) as ListPromptsResult,
      getPrompt: async (params) => (await client.getPrompt(params)) as GetPromptResult,
      ping: async () => {
        // 2026-07-28 has no ping; a cheap request proves the connection instead.
        await client.listPrompts();
      },
      getServerVersion: () => client.getServerVersion() as Implementation | undefined,
      getServerCapabilities: () => client.getServerCapabilities() as ServerCapabilities | undefined,
      getInstructions: () => client.getInstructions(),
    };
    return {
      client: suite,
      protocolVersion: client.getNegotiatedProtocolVersion(),
      answerTypes,
      sentBodies,
      close: () => client.close(),
    };
  }
  const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn });
  const client = new Client({ name: "memory-service-tests", version: "1.0.0" });
  await client.connect(transport);
  // The SDK validates structuredContent against outputSchema only for tools it has listed.
  await client.listTools();
  const suite: SuiteClient = {
    callTool: async (params) => (await client.callTool(params)) as CallToolResult,
    listTools: () => client.listTools(),
    listPrompts: () => client.listPrompts(),
    getPrompt: (params) => client.getPrompt(params),
    ping: () => client.ping(),
    getServerVersion: () => client.getServerVersion(),
    getServerCapabilities: () => client.getServerCapabilities(),
    getInstructions: () => client.getInstructions(),
  };
  return {
    client: suite,
    protocolVersion: transport.protocolVersion,
    answerTypes,
    sentBodies,
    close: () => client.close(),
  };
}

/**
 * Calls a tool and returns its structured result after checking what every MCP client relies on:
 * no isError, content[0] is the same JSON as text, and structuredContent fits the tool's schema.
 */
export async function callTool<T = Record<string, unknown>>(
  client: { callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown> },
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} answered isError`);
  const [first] = result.content;
  if (first?.type !== "text") throw new Error(`${name}: content[0] is not text`);
  if (JSON.stringify(JSON.parse(first.text)) !== JSON.stringify(result.structuredContent)) {
    throw new Error(`${name}: content text and structuredContent differ`);
  }
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  // strict(): no field beyond the declared ones slips through.
  return tool.output.strict().parse(result.structuredContent) as T;
}
