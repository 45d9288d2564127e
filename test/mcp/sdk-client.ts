import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TOOLS_BY_NAME } from "../../gateway-mcp/tools/tool-list.js";

export type TransportMode = "json" | "sse";

export interface ConnectedClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Content types of the POST answers received, to prove which mode was used. */
  readonly answerTypes: string[];
  close(): Promise<void>;
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
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp/v1`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (url, init) => {
      const headers = new Headers(init?.headers);
      if (mode === "sse" && init?.method === "POST")
        headers.set("accept", "text/event-stream, application/json;q=0.5");
      const response = await fetch(url, { ...init, headers });
      if (init?.method === "POST") answerTypes.push(response.headers.get("content-type") ?? "");
      return response;
    },
  });
  const client = new Client({ name: "memory-service-tests", version: "1.0.0" });
  await client.connect(transport);
  // The SDK validates structuredContent against outputSchema only for tools it has listed.
  await client.listTools();
  return { client, transport, answerTypes, close: () => client.close() };
}

/**
 * Calls a tool and returns its structured result after checking what every MCP client relies on:
 * no isError, content[0] is the same JSON as text, and structuredContent fits the tool's schema.
 */
export async function callTool<T = Record<string, unknown>>(
  client: Client,
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
