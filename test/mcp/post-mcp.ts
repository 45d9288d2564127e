/** Raw HTTP access to the MCP endpoint, for tests that check the wire format itself. */
export interface PostOptions {
  token?: string | undefined;
  accept?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export async function postMcp(
  baseUrl: string,
  body: string | object,
  options: PostOptions = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {
    "content-type": options.contentType ?? "application/json",
    accept: options.accept ?? "application/json, text/event-stream",
    ...options.headers,
  };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${baseUrl}/api/mcp/v1`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A JSON-RPC request object with a fresh id. */
let nextId = 1;
export function rpc(
  method: string,
  params?: object,
): { jsonrpc: "2.0"; id: number; method: string; params?: object } {
  return { jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) };
}

export interface JsonRpcAnswer {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export function parseJsonAnswer(answer: RawAnswer): JsonRpcAnswer {
  return JSON.parse(answer.text) as JsonRpcAnswer;
}

export interface SseEvent {
  event: string | undefined;
  id: string | undefined;
  data: string;
}

/** Splits a text/event-stream body into its events (WHATWG HTML "Server-sent events" field rules). */
export function parseSseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    let event: string | undefined;
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (name === "event") event = value;
      else if (name === "id") id = value;
      else if (name === "data") data.push(value);
    }
    events.push({ event, id, data: data.join("\n") });
  }
  return events;
}

/**
 * Limits for tenants of tests that are not about limits: no per-IP MCP limit (the api plan's
 * 60 / 60 s would throttle a test file's many requests from 127.0.0.1) and a high per-token limit.
 */
export const UNTHROTTLED = { requestsPerMinutePerToken: 100_000, mcpRequestsPerMinutePerIp: null } as const;
