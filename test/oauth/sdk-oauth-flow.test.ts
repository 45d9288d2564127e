import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import test from "ava";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import { callTool } from "../mcp/sdk-client.js";
import { freshEmail, freshIp, sessionCookieOf } from "../tenancy/sign-in-helper.js";
import {
  FORM,
  hiddenFields,
  InMemoryOAuthProvider,
  mailedLink,
  mcpCall,
  memberWithWorkspace,
  type OAuthTestBed,
  startOAuthTestBed,
} from "./oauth-kit.js";

// The proof of issue 24: the official MCP SDK client runs its own OAuth flow (discovery from the
// 401, dynamic registration, PKCE, the resource parameter) against the service; the test plays the
// browser — sign-in page, magic link caught by a real SMTP peer, consent — and the SDK then lists
// the tools and recalls with the token it was issued.

let bed: OAuthTestBed;

test.before(async () => {
  bed = await startOAuthTestBed();
});

test.after.always(async () => {
  await bed?.stop();
});

test("the SDK client connects through OAuth end to end, then tools/list and service_recall work", async (t) => {
  const email = freshEmail("oauth");
  const member = await memberWithWorkspace(bed, email);
  const mcpUrl = new URL(`${bed.url}/api/mcp/v1`);
  const provider = new InMemoryOAuthProvider("http://127.0.0.1:9/oauth/callback");

  // 1. Without a token the SDK meets the 401, discovers, registers and asks for the browser step.
  const first = new Client({ name: "oauth-test", version: "1.0.0" });
  await t.throwsAsync(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })), {
    instanceOf: UnauthorizedError,
  });
  const authorizationUrl = provider.authorizationUrl;
  if (!authorizationUrl) throw new Error("the SDK did not ask for authorization");
  t.is(authorizationUrl.origin + authorizationUrl.pathname, `${bed.url}/api/oauth/authorize`);
  t.is(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
  t.is(authorizationUrl.searchParams.get("resource"), mcpUrl.href);
  t.truthy(provider.clientInformation()?.client_id);

  // 2. The browser: not signed in → the sign-in page, which mails a link back to this request.
  const ip = freshIp();
  const signInPage = await fetch(authorizationUrl, {
    headers: { accept: "text/html", "x-forwarded-for": ip },
  });
  t.is(signInPage.status, 200);
  const signInHtml = await signInPage.text();
  t.regex(signInHtml, /SDK test assistant/);
  const { return_to: returnTo } = hiddenFields(signInHtml);
  t.is(returnTo, authorizationUrl.pathname + authorizationUrl.search);
  const sent = await fetch(`${bed.url}/api/oauth/signin`, {
    method: "POST",
    headers: { "content-type": FORM, accept: "text/html", "x-forwarded-for": ip },
    body: new URLSearchParams({ email, return_to: returnTo ?? "", lang: "en" }),
  });
  t.is(sent.status, 200);
  t.regex(await sent.text(), /Check your e-mail/);

  // 3. The mailed link signs in and returns to the authorization request.
  const link = await mailedLink(bed, email);
  const signedIn = await fetch(link, { redirect: "manual" });
  t.is(signedIn.status, 303);
  const session = sessionCookieOf(signedIn);
  if (!session) throw new Error("no session cookie");
  const cookie = `service.session-token=${session}`;
  t.is(signedIn.headers.get("location"), authorizationUrl.href);

  // 4. Consent: which client, which workspace, which scopes; the user allows.
  const consentPage = await fetch(authorizationUrl, { headers: { accept: "text/html", cookie } });
  t.is(consentPage.status, 200);
  const consentHtml = await consentPage.text();
  t.regex(consentHtml, /SDK test assistant/);
  t.true(consentHtml.includes(member.slug));
  t.true(consentHtml.includes(email));
  const form = new URLSearchParams(hiddenFields(consentHtml));
  for (const scope of ["read", "write"]) form.append("scope", scope);
  form.set("decision", "allow");
  const approved = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie, origin: bed.url, "sec-fetch-site": "same-origin" },
    body: form,
  });
  t.is(approved.status, 303);
  const callback = new URL(approved.headers.get("location") ?? "");
  t.is(callback.origin + callback.pathname, "http://127.0.0.1:9/oauth/callback");
  t.is(callback.searchParams.get("state"), "sdk-state-1");
  t.is(callback.searchParams.get("iss"), bed.url);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code: ${callback.href}`);

  // 5. Back in the SDK: finishAuth exchanges the code (PKCE verifier, resource) for tokens.
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  const tokens = provider.tokens();
  t.regex(tokens?.access_token ?? "", /^kmt_[A-Za-z0-9_-]{43}$/);
  t.regex(tokens?.refresh_token ?? "", /^kmr_[A-Za-z0-9_-]{43}$/);
  t.is(tokens?.token_type, "Bearer");
  t.is(tokens?.expires_in, 3600);
  t.is(tokens?.scope, "read write");

  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  t.is(tools.length, TOOLS.length);
  const stored = await callTool<{ id: string }>(client, "service_store_memory", {
    title: "OAuth proof",
    content: "The connector for the assistant was authorised with OAuth and PKCE on a Tuesday.",
  });
  t.truthy(stored.id);
  const recalled = await callTool<{ hits: { title: string }[] }>(client, "service_recall", {
    query: "connector authorised with OAuth and PKCE",
  });
  t.true(recalled.hits.some((h) => h.title === "OAuth proof"));
  await client.close();

  // 6. The connection is listed beside the API tokens, with its kind, and revoked the same way.
  const listed = await fetch(`${bed.url}/api/tokens`, { headers: { cookie } });
  t.is(listed.status, 200);
  const list = (await listed.json()) as { id: string; name: string; kind: string; scopes: string[] }[];
  const connection = list.find((entry) => entry.kind === "oauth");
  t.like(connection, { name: "SDK test assistant", scopes: ["read", "write"] });
  t.true(list.some((entry) => entry.kind === "api"));
  const revoked = await fetch(`${bed.url}/api/tokens/${connection?.id}`, {
    method: "DELETE",
    headers: { cookie },
  });
  t.is(revoked.status, 200);
  const after = await mcpCall(bed, tokens?.access_token, "tools/list");
  t.is(after.status, 401);
  t.regex(after.headers.get("www-authenticate") ?? "", /error="invalid_token"/);

  // The tokens never reached the log.
  const log = bed.service.logLines.join("\n");
  t.false(log.includes(tokens?.access_token ?? "missing"));
  t.false(log.includes(tokens?.refresh_token ?? "missing"));
  t.false(log.includes(code));
});

test("a refresh through the SDK rotates the refresh token; the old one then revokes the connection", async (t) => {
  const email = freshEmail("refresh");
  await memberWithWorkspace(bed, email);
  const mcpUrl = new URL(`${bed.url}/api/mcp/v1`);
  const provider = new InMemoryOAuthProvider("http://localhost:9/cb");
  await t.throwsAsync(
    new Client({ name: "r", version: "1" }).connect(
      new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }),
    ),
    { instanceOf: UnauthorizedError },
  );
  const url = provider.authorizationUrl;
  if (!url) throw new Error("no authorization url");
  // Signed in already (a session written for this member), straight to consent.
  const [row] = await bed.service.storage.db.sql<
    { id: string }[]
  >`select id from users where email = ${email}`;
  const { generateSecret, hashSecret } = await import("../../core/auth/token-format.js");
  const secret = generateSecret();
  await bed.service.storage.db.sql`
    insert into sessions (user_id, token_hash, expires_at) values (${row?.id ?? ""}, ${hashSecret(secret)}, now() + interval '1 hour')`;
  const cookie = `service.session-token=${secret}`;
  const html = await (await fetch(url, { headers: { cookie } })).text();
  const form = new URLSearchParams(hiddenFields(html));
  form.append("scope", "read");
  form.set("decision", "allow");
  const approved = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie },
    body: form,
  });
  const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  const firstTokens = provider.tokens();
  t.is(firstTokens?.scope, "read");

  // The SDK refreshes when the server refuses the access token: expire it in the database.
  await bed.service.storage.db.sql`update oauth_access_tokens set expires_at = now() - interval '1 second'`;
  const client = new Client({ name: "r", version: "1" });
  await client.connect(transport);
  await client.listTools();
  const secondTokens = provider.tokens();
  t.not(secondTokens?.access_token, firstTokens?.access_token);
  t.not(secondTokens?.refresh_token, firstTokens?.refresh_token);
  await client.close();

  // The rotated-out refresh token presented again: invalid_grant, and the whole connection ends.
  const info = provider.clientInformation();
  const replay = await fetch(`${bed.url}/api/oauth/token`, {
    method: "POST",
    headers: { "content-type": FORM },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: firstTokens?.refresh_token ?? "",
      client_id: info?.client_id ?? "",
    }),
  });
  t.is(replay.status, 400);
  t.like(await replay.json(), { error: "invalid_grant" });
  t.is((await mcpCall(bed, secondTokens?.access_token, "tools/list")).status, 401);
});
