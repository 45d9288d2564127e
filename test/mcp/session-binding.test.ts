import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import test from "ava";
import { belongsTo, issueSessionId, principalTagOf, readSessionId } from "../../gateway-mcp/session-id.js";
import type { GetSessionResponse } from "../../gen/memory/v1/tenancy_service_pb.js";
import {
  authorizationParams,
  consent,
  memberSession,
  type OAuthTestBed,
  pkce,
  registerClient,
  startOAuthTestBed,
  tokenRequest,
} from "../oauth/oauth-kit.js";
import { parseJsonAnswer, postMcp, rpc } from "./post-mcp.js";
import { callTool } from "./sdk-client.js";

// ADR 0425: a 2025-11-25 Mcp-Session-Id is bound to the caller's workspace and token (for an OAuth
// connection: its grant), not derived from the bearer secret. A token refresh keeps the session;
// another token or workspace presenting it is refused where it would matter (404).

let bed: OAuthTestBed;
let cookie: string;

test.before(async () => {
  bed = await startOAuthTestBed();
  ({ cookie } = await memberSession(bed));
});

test.after.always(async () => {
  await bed?.stop();
});

/** An OAuth connection with every scope (erasure needs admin): consent, code, token pair. */
async function adminConnection(): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const client = await registerClient(bed);
  const { verifier, challenge } = pkce();
  const params = authorizationParams(bed, client, challenge, { scope: "read write admin" });
  const { location } = await consent(bed, cookie, params, ["read", "write", "admin"]);
  const code = location?.searchParams.get("code") ?? "";
  const res = await tokenRequest(bed, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    resource: `${bed.url}/api/mcp/v1`,
  });
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
  const tokens = (await res.json()) as { access_token: string; refresh_token: string };
  return { clientId: client.clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

const caller = (fields: Partial<GetSessionResponse>) => fields as GetSessionResponse;

test("a session id names its principal; it is fresh per initialize and no bearer secret goes into it", (t) => {
  const a = caller({ tenantId: "t1", tokenId: "grant-1" });
  const first = issueSessionId(a, { revision: "2025-11-25", elicitation: true }) ?? "";
  const second = issueSessionId(a, { revision: "2025-11-25", elicitation: true }) ?? "";
  t.regex(first, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{32}$/);
  t.not(first, second, "two sessions of one caller differ (elicitation answers are filed per session)");
  const read = readSessionId(first);
  t.like(read, { id: first, elicitation: true });
  if (!read) return;
  t.true(belongsTo(read, a));
  t.false(belongsTo(read, caller({ tenantId: "t1", tokenId: "grant-2" })), "another token of the workspace");
  t.false(belongsTo(read, caller({ tenantId: "t2", tokenId: "grant-1" })), "another workspace");
  t.false(belongsTo(read, caller({ tokenId: "grant-1" })), "no workspace");
  t.is(principalTagOf(caller({ tenantId: "t1" })), undefined, "nothing to bind to");
  for (const bad of [
    undefined,
    "",
    "no-dot",
    `${first}x`,
    `${"a".repeat(600)}.${"b".repeat(32)}`,
    "%%%.abc",
  ]) {
    t.is(readSessionId(bad), undefined, String(bad));
  }
});

test("a token refresh keeps the 2025-11-25 session: after it the user is still asked through elicitation", async (t) => {
  const connection = await adminConnection();
  let accessToken = connection.accessToken;
  const sentSessionIds = new Set<string>();
  const transport = new StreamableHTTPClientTransport(new URL(`${bed.url}/api/mcp/v1`), {
    // The token of the moment on every request, as a client that refreshed would send it.
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${accessToken}`);
      const sessionId = headers.get("mcp-session-id");
      if (sessionId) sentSessionIds.add(sessionId);
      return fetch(input, { ...init, headers });
    },
  });
  const client = new Client(
    { name: "session-binding", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const questions: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  const sessionId = transport.sessionId ?? "";
  t.truthy(readSessionId(sessionId), "a session id was issued");
  t.false(sessionId.includes(accessToken));

  const stored = await callTool<{ memory_id: string }>(client, "service_store_memory", {
    title: "Refreshed session",
    content: "This memory is erased after the access token was refreshed.",
  });

  const refreshed = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: connection.refreshToken,
    client_id: connection.clientId,
  });
  t.is(refreshed.status, 200);
  const { access_token: newToken } = (await refreshed.json()) as { access_token: string };
  t.not(newToken, accessToken);
  // The old access token is still valid until it expires; the point is the session works with the new one.
  accessToken = newToken;

  const erased = (await client.callTool({
    name: "service_erase_memory",
    arguments: { memory_id: stored.memory_id },
  })) as CallToolResult;
  t.falsy(erased.isError, JSON.stringify(erased.content));
  t.like(erased.structuredContent, { erased: true, memory_id: stored.memory_id });
  t.is(questions.length, 1, "the user was asked through the session that outlived the token");
  t.deepEqual([...sentSessionIds], [sessionId], "the client kept its one session");
});

const HEADERS_2025 = { "mcp-protocol-version": "2025-11-25" };

test("another token or workspace presenting a session id gets 404 where it would matter", async (t) => {
  const owner = await bed.service.createTenant({ plan: "api", scopes: ["read", "write", "admin"] });
  const initialized = await postMcp(
    bed.url,
    rpc("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "owner", version: "1" },
    }),
    { token: owner.token },
  );
  const sessionId = initialized.headers.get("mcp-session-id") ?? "";
  t.truthy(readSessionId(sessionId));

  const sameWorkspace = (await owner.issueToken(["read", "write", "admin"], "second")).token;
  const otherWorkspace = (await bed.service.createTenant({ plan: "api", scopes: ["read", "write", "admin"] }))
    .token;
  for (const [label, token] of [
    ["another token of the workspace", sameWorkspace],
    ["another workspace", otherWorkspace],
  ] as const) {
    const headers = { ...HEADERS_2025, "mcp-session-id": sessionId };
    // Its own memory: the erase would ask the user through the presented session.
    const stored = parseJsonAnswer(
      await postMcp(
        bed.url,
        rpc("tools/call", {
          name: "service_store_memory",
          arguments: { title: "Mine", content: `A memory of ${label}.` },
        }),
        { token, headers, accept: "application/json" },
      ),
    );
    const memoryId = (stored.result?.structuredContent as { memory_id: string }).memory_id;
    const erase = await postMcp(
      bed.url,
      rpc("tools/call", { name: "service_erase_memory", arguments: { memory_id: memoryId } }),
      { token, headers },
    );
    t.is(erase.status, 404, label);
    t.like(parseJsonAnswer(erase).error, { code: -32600 });
    t.regex(parseJsonAnswer(erase).error?.message ?? "", /Session not found/);
    // Nothing was erased.
    const still = parseJsonAnswer(
      await postMcp(
        bed.url,
        rpc("tools/call", {
          name: "service_erase_memory",
          arguments: { memory_id: memoryId, confirm: false },
        }),
        { token, headers: HEADERS_2025, accept: "application/json" },
      ),
    );
    t.like(still.result?.structuredContent, { erased: false, memory_id: memoryId }, label);

    // An answer to an elicitation through someone else's session is refused too.
    const answer = await postMcp(
      bed.url,
      { jsonrpc: "2.0", id: "elicitation-x", result: { action: "accept", content: { confirm: true } } },
      { token, headers },
    );
    t.is(answer.status, 404, label);
  }
  // The owner's own answer is accepted (202; no question was waiting under that id).
  const own = await postMcp(
    bed.url,
    { jsonrpc: "2.0", id: "elicitation-x", result: { action: "accept", content: { confirm: true } } },
    { token: owner.token, headers: { ...HEADERS_2025, "mcp-session-id": sessionId } },
  );
  t.is(own.status, 202);
});
