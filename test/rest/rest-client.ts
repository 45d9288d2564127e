/** Plain fetch against a running service, as any REST client would call it. */
export interface RestAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  readonly body: unknown;
  readonly text: string;
}

export interface RestCall {
  method?: string;
  /** API token, sent as `Authorization: Bearer …`. */
  token?: string;
  /** Cookie header (the session cookie). */
  cookie?: string;
  /** JSON-encoded unless a string (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function rest(baseUrl: string, path: string, call: RestCall = {}): Promise<RestAnswer> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.cookie) headers.cookie = call.cookie;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === "string" ? call.body : JSON.stringify(call.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${baseUrl}${path}`, {
    method: call.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: "manual",
  });
  const text = await res.text();
  const isJson = (res.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: res.status, headers: res.headers, body: isJson && text ? JSON.parse(text) : text, text };
}

/** The `error` of a generic error body. */
export function errorOf(answer: RestAnswer): string {
  const body = answer.body as { error?: unknown };
  return typeof body?.error === "string" ? body.error : "";
}

/** POST /api/memory/recall as `token`; the hits, or an error naming the status (tests assert on hits). */
export async function recallHits<H>(
  baseUrl: string,
  token: string,
  body: Record<string, unknown>,
): Promise<H[]> {
  const res = await rest(baseUrl, "/api/memory/recall", { token, body });
  if (res.status !== 200) throw new Error(`recall: ${res.status} ${res.text}`);
  return (res.body as { hits: H[] }).hits;
}

/**
 * Stores each named text as a semantic memory over REST (POST /api/v1/memory/entries) and returns the
 * memory ids by name; any status but 201 fails the caller's setup.
 */
export async function storeEntries(
  baseUrl: string,
  token: string,
  memories: Readonly<Record<string, string>>,
  title: string,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [name, content] of Object.entries(memories)) {
    const res = await rest(baseUrl, "/api/v1/memory/entries", {
      token,
      body: { memory_type: "semantic", title, content },
    });
    if (res.status !== 201) throw new Error(`store: ${res.status} ${res.text}`);
    ids[name] = (res.body as { memoryId: string }).memoryId;
  }
  return ids;
}
