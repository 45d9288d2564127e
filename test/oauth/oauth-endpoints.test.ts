import test from "ava";
import { hashSecret } from "../../core/auth/token-format.js";
import { waitFor } from "../helpers/test-service.js";
import { freshIp } from "../tenancy/sign-in-helper.js";
import {
  authorizationParams,
  connectedClient,
  consent,
  FORM,
  hiddenFields,
  mcpCall,
  memberSession,
  type OAuthTestBed,
  pkce,
  registerClient,
  startOAuthTestBed,
  tokenRequest,
} from "./oauth-kit.js";

// The OAuth endpoints one by one, with a plain HTTP client: the discovery documents, and every bad
// input of issue 24 answered with the RFC's error (never a 500).

let bed: OAuthTestBed;
let cookie: string;
let apiToken: string;

test.before(async () => {
  bed = await startOAuthTestBed();
  ({ cookie, apiToken } = await memberSession(bed));
});

test.after.always(async () => {
  await bed?.stop();
});

const resource = () => `${bed.url}/api/mcp/v1`;

async function authorize(params: URLSearchParams, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${bed.url}/api/oauth/authorize?${params}`, {
    redirect: "manual",
    headers: { "x-forwarded-for": freshIp(), ...headers },
  });
}

async function codeFor(scopes = ["read", "write"], extra: Record<string, string | undefined> = {}) {
  const client = await registerClient(bed);
  const { verifier, challenge } = pkce();
  const { location } = await consent(bed, cookie, authorizationParams(bed, client, challenge, extra), scopes);
  const code = location?.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location?.href}`);
  return { client, verifier, code };
}

function exchange(
  c: { client: { clientId: string; redirectUri: string }; verifier: string; code: string },
  overrides: Record<string, string | undefined> = {},
) {
  const form: Record<string, string | undefined> = {
    grant_type: "authorization_code",
    code: c.code,
    code_verifier: c.verifier,
    client_id: c.client.clientId,
    redirect_uri: c.client.redirectUri,
    resource: resource(),
    ...overrides,
  };
  return tokenRequest(
    bed,
    Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined)),
  );
}

async function oauthError(res: Response): Promise<string> {
  const body = (await res.json()) as { error?: string; error_description?: string };
  return body.error ?? `(none: ${JSON.stringify(body)})`;
}

test("a request without a token is 401 with WWW-Authenticate naming the resource metadata", async (t) => {
  const res = await mcpCall(bed, undefined, "tools/list");
  t.is(res.status, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  t.is(
    challenge,
    `Bearer realm="memory-service", resource_metadata="${bed.url}/.well-known/oauth-protected-resource/api/mcp/v1"`,
  );
  // A refused token adds invalid_token (RFC 6750 3.1).
  const bad = await mcpCall(bed, `kmt_${"A".repeat(43)}`, "tools/list");
  t.is(bad.status, 401);
  t.regex(bad.headers.get("www-authenticate") ?? "", /resource_metadata=".*", error="invalid_token"$/);
});

test("protected resource and authorization server metadata describe the flow", async (t) => {
  const discovery = (await (await fetch(`${bed.url}/api/mcp/v1`)).json()) as Record<string, unknown>;
  t.like(discovery, {
    authentication: {
      oauth: {
        resource: resource(),
        resource_metadata: `${bed.url}/.well-known/oauth-protected-resource/api/mcp/v1`,
        authorization_server: bed.url,
      },
    },
  });
  for (const path of [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/api/mcp/v1",
  ]) {
    const res = await fetch(`${bed.url}${path}`);
    t.is(res.status, 200, path);
    t.like(await res.json(), {
      resource: resource(),
      authorization_servers: [bed.url],
      scopes_supported: ["read", "write", "admin"],
      bearer_methods_supported: ["header"],
    });
  }
  const res = await fetch(`${bed.url}/.well-known/oauth-authorization-server`);
  t.is(res.status, 200);
  t.like(await res.json(), {
    issuer: bed.url,
    authorization_endpoint: `${bed.url}/api/oauth/authorize`,
    token_endpoint: `${bed.url}/api/oauth/token`,
    registration_endpoint: `${bed.url}/api/oauth/register`,
    revocation_endpoint: `${bed.url}/api/oauth/revoke`,
    code_challenge_methods_supported: ["S256"],
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
  });
});

test("registration: https or loopback redirect URIs only, known methods and scopes", async (t) => {
  const register = (body: unknown) =>
    fetch(`${bed.url}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
      body: JSON.stringify(body),
    });
  const cases: [unknown, string][] = [
    [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
    [{ redirect_uris: [] }, "invalid_redirect_uri"],
    [{}, "invalid_redirect_uri"],
    [
      { redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
      "invalid_client_metadata",
    ],
    [{ redirect_uris: ["https://app.example/cb"], scope: "read everything" }, "invalid_client_metadata"],
    [
      { redirect_uris: ["https://app.example/cb"], grant_types: ["client_credentials"] },
      "invalid_client_metadata",
    ],
  ];
  for (const [body, error] of cases) {
    const res = await register(body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(await oauthError(res), error, JSON.stringify(body));
  }
  const broken = await fetch(`${bed.url}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
    body: "{not json",
  });
  t.is(broken.status, 400);
  t.is(await oauthError(broken), "invalid_request");

  for (const uri of [
    "https://app.example/cb",
    "http://127.0.0.1:33418/cb",
    "http://localhost/cb",
    "http://[::1]:8/cb",
  ]) {
    const ok = await register({ redirect_uris: [uri], client_name: "ok" });
    t.is(ok.status, 201, uri);
    const body = (await ok.json()) as Record<string, unknown>;
    t.like(body, { redirect_uris: [uri], token_endpoint_auth_method: "none", scope: "read write admin" });
    t.is(body.client_secret, undefined);
  }
});

test("authorize: an unknown client or unregistered redirect URI is shown, never redirected", async (t) => {
  const client = await registerClient(bed);
  const { challenge } = pkce();
  const unknown = await authorize(
    authorizationParams(bed, { ...client, clientId: "00000000-0000-4000-8000-000000000000" }, challenge),
  );
  t.is(unknown.status, 401);
  t.is(unknown.headers.get("location"), null);
  t.is(await oauthError(unknown), "invalid_client");
  const junkId = await authorize(
    authorizationParams(bed, { ...client, clientId: "not-a-client" }, challenge),
  );
  t.is(await oauthError(junkId), "invalid_client");

  const mismatch = await authorize(
    authorizationParams(bed, { ...client, redirectUri: "https://attacker.example/cb" }, challenge),
  );
  t.is(mismatch.status, 400);
  t.is(mismatch.headers.get("location"), null);
  t.is(await oauthError(mismatch), "invalid_request");

  // Browsers get a page with the error instead of JSON.
  const page = await authorize(
    authorizationParams(bed, { ...client, redirectUri: "https://x.example/" }, challenge),
    {
      accept: "text/html",
      "accept-language": "de-DE,de;q=0.9",
    },
  );
  t.is(page.status, 400);
  const html = await page.text();
  t.regex(html, /Diese Anfrage kann nicht ausgeführt werden/);
  t.regex(html, /invalid_request/);
});

test("authorize: missing or non-S256 PKCE, wrong response type, scope or resource go back as errors", async (t) => {
  const client = await registerClient(bed, { scope: "read write" });
  const { challenge } = pkce();
  const cases: [Record<string, string | undefined>, string][] = [
    [{ code_challenge: undefined }, "invalid_request"],
    [{ code_challenge_method: "plain" }, "invalid_request"],
    [{ code_challenge_method: undefined }, "invalid_request"],
    [{ code_challenge: "short" }, "invalid_request"],
    [{ response_type: "token" }, "unsupported_response_type"],
    [{ scope: "read admin" }, "invalid_scope"],
    [{ resource: "https://other.example/mcp" }, "invalid_target"],
  ];
  for (const [extra, error] of cases) {
    const res = await authorize(authorizationParams(bed, client, challenge, extra));
    t.is(res.status, 303, JSON.stringify(extra));
    const location = new URL(res.headers.get("location") ?? "");
    t.is(location.origin + location.pathname, client.redirectUri);
    t.is(location.searchParams.get("error"), error, JSON.stringify(extra));
    t.is(location.searchParams.get("state"), "st-123");
    t.is(location.searchParams.get("iss"), bed.url);
  }
  // The same checks hold when the consent form is posted directly (with the session's token).
  const { location } = await consent(
    bed,
    cookie,
    authorizationParams(bed, client, challenge, { code_challenge: undefined }),
    undefined,
    authorizationParams(bed, client, challenge),
  );
  t.is(location?.searchParams.get("error"), "invalid_request");
  // A repeated parameter is invalid_request.
  const repeated = authorizationParams(bed, client, challenge);
  repeated.append("state", "again");
  t.is((await authorize(repeated)).status, 400);
});

test("authorize: signed out shows sign-in; signed in shows consent; deny and cross-site posts refused", async (t) => {
  const client = await registerClient(bed);
  const { challenge } = pkce();
  const params = authorizationParams(bed, client, challenge);
  const signedOut = await authorize(params, { accept: "text/html" });
  t.is(signedOut.status, 200);
  t.regex(await signedOut.text(), /Send sign-in link/);
  const german = await authorize(params, { cookie, "accept-language": "de" });
  t.is(german.status, 200);
  const html = await german.text();
  t.regex(html, /Zugriff erlauben\?/);
  t.regex(html, /Test assistant/);
  t.regex(german.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);

  const form = new URLSearchParams(params);
  form.set("requested_scope", "read write");
  form.set("redirect_uri_given", "1");
  form.set("decision", "deny");
  form.set("csrf_token", hiddenFields(html).csrf_token ?? "");
  const denied = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie },
    body: form,
  });
  t.is(denied.status, 303);
  t.is(new URL(denied.headers.get("location") ?? "").searchParams.get("error"), "access_denied");

  form.set("decision", "allow");
  form.append("scope", "read");
  const crossSite = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie, origin: "https://evil.example" },
    body: form,
  });
  t.is(crossSite.status, 403);
  t.is(crossSite.headers.get("location"), null);

  // Same origin but without the page's anti-CSRF token (a form forged on another page of the
  // site, an old browser without Origin): refused.
  const withoutToken = new URLSearchParams(form);
  withoutToken.delete("csrf_token");
  for (const body of [withoutToken, new URLSearchParams({ ...Object.fromEntries(form), csrf_token: "x" })]) {
    const forged = await fetch(`${bed.url}/api/oauth/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": FORM, cookie, origin: bed.url },
      body,
    });
    t.is(forged.status, 403);
  }
  // What a browser sends when the page hides its origin (Origin: null) — accepted with the token.
  const nullOrigin = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie, origin: "null", "sec-fetch-site": "same-origin" },
    body: form,
  });
  t.is(nullOrigin.status, 303);
  t.truthy(new URL(nullOrigin.headers.get("location") ?? "").searchParams.get("code"));
});

test("token: missing verifier is invalid_request; wrong verifier invalid_grant and burns the code", async (t) => {
  const c = await codeFor();
  const missing = await exchange(c, { code_verifier: undefined });
  t.is(missing.status, 400);
  t.is(await oauthError(missing), "invalid_request");
  const wrong = await exchange(c, { code_verifier: pkce().verifier });
  t.is(wrong.status, 400);
  t.is(await oauthError(wrong), "invalid_grant");
  // The code was spent by the failed attempt: the right verifier no longer helps.
  const late = await exchange(c);
  t.is(await oauthError(late), "invalid_grant");
});

test("token: mismatched redirect URI, unknown client, other client, unknown grant type", async (t) => {
  const c = await codeFor();
  const otherRedirect = await exchange(c, { redirect_uri: "http://127.0.0.1:9/other" });
  t.is(otherRedirect.status, 400);
  t.is(await oauthError(otherRedirect), "invalid_grant");

  const d = await codeFor();
  const unknownClient = await exchange(d, { client_id: "00000000-0000-4000-8000-000000000000" });
  t.is(unknownClient.status, 401);
  t.is(await oauthError(unknownClient), "invalid_client");
  const noClient = await exchange(d, { client_id: undefined });
  t.is(noClient.status, 401);
  const other = await registerClient(bed);
  t.is(await oauthError(await exchange(d, { client_id: other.clientId })), "invalid_grant");

  const grant = await tokenRequest(bed, { grant_type: "password", client_id: other.clientId });
  t.is(await oauthError(grant), "unsupported_grant_type");
  const json = await fetch(`${bed.url}/api/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: "authorization_code" }),
  });
  t.is(json.status, 400);
  t.is(await oauthError(json), "invalid_request");
});

test("token: a reused code is invalid_grant and revokes the tokens of its first use", async (t) => {
  const c = await codeFor();
  const first = await exchange(c);
  t.is(first.status, 200);
  t.is(first.headers.get("cache-control"), "no-store");
  const { access_token: accessToken } = (await first.json()) as { access_token: string };
  t.is((await mcpCall(bed, accessToken, "tools/list")).status, 200);
  const second = await exchange(c);
  t.is(second.status, 400);
  t.is(await oauthError(second), "invalid_grant");
  t.is((await mcpCall(bed, accessToken, "tools/list")).status, 401);
});

test("token: an expired code (older than 10 minutes) is invalid_grant", async (t) => {
  const c = await codeFor();
  // Ten minutes and a second later, as the clock would have it.
  await bed.service.storage.db.sql`
    update oauth_codes set created_at = created_at - interval '601 seconds', expires_at = expires_at - interval '601 seconds'
    where code_hash = ${hashSecret(c.code)}`;
  const res = await exchange(c);
  t.is(res.status, 400);
  t.is(await oauthError(res), "invalid_grant");
});

test("codes are valid exactly 10 minutes", async (t) => {
  const { code } = await codeFor();
  const [row] = await bed.service.storage.db.sql<{ ttl: number }[]>`
    select round(extract(epoch from (expires_at - created_at)))::int as ttl from oauth_codes
    where code_hash = ${hashSecret(code)}`;
  t.is(row?.ttl, 600);
});

test("token: a resource other than the code's is invalid_target", async (t) => {
  const c = await codeFor();
  const res = await exchange(c, { resource: "https://other.example/api/mcp/v1" });
  t.is(res.status, 400);
  t.is(await oauthError(res), "invalid_target");
});

test("a token issued for another resource is refused: on REST, and on MCP when bound elsewhere", async (t) => {
  const connected = await connectedClient(bed, cookie);
  t.is((await mcpCall(bed, connected.accessToken, "tools/list")).status, 200);
  // The MCP endpoint's token used on the REST API (another resource): 401.
  const rest = await fetch(`${bed.url}/api/v1/memory/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${connected.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "anything" }),
  });
  t.is(rest.status, 401);
  t.regex(
    ((await rest.json()) as { error: string }).error,
    /issued for .*\/api\/mcp\/v1, not for this endpoint/,
  );
  // The same workspace's kmt_ token is accepted there, so the 401 is the audience and not the route.
  t.is(
    (
      await fetch(`${bed.url}/api/v1/memory/recall`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "anything" }),
      })
    ).status,
    200,
  );
  // An access token whose audience is another server's MCP endpoint: 401 here.
  const mine = hashSecret(connected.accessToken);
  await bed.service.storage.db.sql`
    update oauth_access_tokens set resource = 'https://other.example/api/mcp/v1' where token_hash = ${mine}`;
  // Lookups are cached for at most 1 s (core/auth/authenticate.ts); the refusal follows within it.
  const elsewhere = await waitFor(
    async () => {
      const res = await mcpCall(bed, connected.accessToken, "tools/list");
      return res.status === 401 ? res : undefined;
    },
    { what: "the re-bound token to be refused" },
  );
  t.is(elsewhere.status, 401);
  t.regex(JSON.stringify(elsewhere.body), /issued for https:\/\/other\.example\/api\/mcp\/v1/);
});

test("consented scopes are enforced like a kmt_ token's: a read-only connection cannot write", async (t) => {
  const connected = await connectedClient(bed, cookie, ["read"]);
  const read = await mcpCall(bed, connected.accessToken, "tools/call", {
    name: "service_list_recent",
    arguments: {},
  });
  t.is(read.status, 200);
  t.truthy(read.body.result);
  const write = await mcpCall(bed, connected.accessToken, "tools/call", {
    name: "service_store_memory",
    arguments: { content: "not allowed" },
  });
  t.is((write.body.error as { code: number }).code, -32002);
});

test("an OAuth token short of a scope is 403 with an insufficient_scope challenge naming what to ask for", async (t) => {
  const connected = await connectedClient(bed, cookie, ["read"]);
  const write = await mcpCall(bed, connected.accessToken, "tools/call", {
    name: "service_store_memory",
    arguments: { content: "not allowed" },
  });
  t.is(write.status, 403);
  t.is((write.body.error as { code: number }).code, -32002);
  t.is(
    write.headers.get("www-authenticate"),
    `Bearer realm="memory-service", resource_metadata="${bed.url}/.well-known/oauth-protected-resource/api/mcp/v1", error="insufficient_scope", scope="read write", error_description="this call needs the 'write' scope, which the token lacks"`,
  );
  t.like(write.body.error, {
    data: { reason: "permission_denied", required_scope: "write", scope: "read write" },
  });
  // An API token keeps the spec's -32002 on HTTP 200 (it cannot step up).
  const readOnly = await bed.service.createTenant({ plan: "api", scopes: ["read"] });
  const api = await mcpCall(bed, readOnly.token, "tools/call", {
    name: "service_store_memory",
    arguments: { content: "not allowed either" },
  });
  t.is(api.status, 200);
  t.is((api.body.error as { code: number }).code, -32002);
  t.is(api.headers.get("www-authenticate"), null);
});

test("refresh: narrowing works, widening is invalid_scope, a bad token invalid_grant", async (t) => {
  const connected = await connectedClient(bed, cookie, ["read", "write"]);
  const narrowed = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: connected.refreshToken,
    client_id: connected.clientId,
    scope: "read",
  });
  t.is(narrowed.status, 200);
  const body = (await narrowed.json()) as { scope: string; refresh_token: string };
  t.is(body.scope, "read");
  const widened = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: body.refresh_token,
    client_id: connected.clientId,
    scope: "read admin",
  });
  t.is(await oauthError(widened), "invalid_scope");
  const junk = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: "kmr_nope",
    client_id: connected.clientId,
  });
  t.is(await oauthError(junk), "invalid_grant");
});

test("revocation (RFC 7009): the connection ends; unknown tokens are a quiet 200", async (t) => {
  const connected = await connectedClient(bed, cookie);
  const revoke = (token: string, clientId = connected.clientId) =>
    fetch(`${bed.url}/api/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": FORM },
      body: new URLSearchParams({ token, client_id: clientId }),
    });
  t.is((await revoke("kmt_unknown")).status, 200);
  // Another client cannot revoke it.
  const other = await registerClient(bed);
  t.is((await revoke(connected.accessToken, other.clientId)).status, 200);
  t.is((await mcpCall(bed, connected.accessToken, "tools/list")).status, 200);
  t.is((await revoke(connected.refreshToken)).status, 200);
  t.is((await mcpCall(bed, connected.accessToken, "tools/list")).status, 401);
  const [grant] = await bed.service.storage.db.sql<{ id: string }[]>`
    select a.grant_id as id from oauth_access_tokens a where a.token_hash = ${hashSecret(connected.accessToken)}`;
  const audit = await bed.service.storage.db.sql<{ details: { via?: string } }[]>`
    select details from audit_log where action = 'token.revoked' and target = ${grant?.id ?? ""}`;
  t.is(audit[0]?.details.via, "oauth_revocation");
  const refresh = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: connected.refreshToken,
    client_id: connected.clientId,
  });
  t.is(await oauthError(refresh), "invalid_grant");
});

test("confidential clients authenticate with their secret (post or basic)", async (t) => {
  const client = await registerClient(bed, { token_endpoint_auth_method: "client_secret_basic" });
  t.truthy(client.clientSecret);
  const { verifier, challenge } = pkce();
  const { location } = await consent(bed, cookie, authorizationParams(bed, client, challenge));
  const code = location?.searchParams.get("code") ?? "";
  const form = {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: client.redirectUri,
  };
  const basic = (secret: string) =>
    fetch(`${bed.url}/api/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": FORM,
        authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString("base64")}`,
      },
      body: new URLSearchParams(form),
    });
  const wrong = await basic("wrong-secret");
  t.is(wrong.status, 401);
  t.is(wrong.headers.get("www-authenticate"), 'Basic realm="oauth"');
  t.is(await oauthError(wrong), "invalid_client");
  const none = await tokenRequest(bed, { ...form, client_id: client.clientId });
  t.is(await oauthError(none), "invalid_client");
  const ok = await basic(client.clientSecret ?? "");
  t.is(ok.status, 200);
});

test("an OAuth connection needs the plan that has API tokens (402 on the consent page)", async (t) => {
  const tenant = await bed.service.createTenant({ plan: "free" });
  const { createSessionCookie } = await import("../rest/sessions.js");
  const freeCookie = await createSessionCookie(bed.service, tenant.tenantId);
  const client = await registerClient(bed);
  const { res } = await consent(bed, freeCookie, authorizationParams(bed, client, pkce().challenge));
  t.is(res.status, 402);
  t.regex(await res.text(), /api plan/);
});

test("the authorization endpoints are rate-limited per IP", async (t) => {
  const ip = freshIp();
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    const res = await fetch(`${bed.url}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify({ redirect_uris: ["https://app.example/cb"] }),
    });
    statuses.push(res.status);
    if (res.status === 429) t.truthy(res.headers.get("retry-after"));
  }
  t.deepEqual(statuses.slice(0, 30), Array(30).fill(201));
  t.is(statuses[30], 429);
});

test("existing kmt_ tokens work unchanged and never need OAuth", async (t) => {
  const tenant = await bed.service.createTenant({ plan: "api" });
  const res = await mcpCall(bed, tenant.token, "tools/list");
  t.is(res.status, 200);
  t.is(res.headers.get("www-authenticate"), null);
});

test("by default a client ID metadata document on a private address or over http is refused, unfetched", async (t) => {
  // This bed runs without OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: the outbound guard's default.
  const { challenge } = pkce();
  const cases: [string, RegExp][] = [
    ["https://127.0.0.1:9/clients/loopback.json", /127\.0\.0\.1 is loopback/],
    ["https://10.0.0.1/clients/private.json", /10\.0\.0\.1 is private/],
    ["http://assistant.example/clients/plain-http.json", /must use https/],
  ];
  for (const [clientId, message] of cases) {
    const res = await authorize(
      authorizationParams(bed, { clientId, redirectUri: "http://127.0.0.1:9/callback" }, challenge),
    );
    t.is(res.status, 401, clientId);
    t.is(res.headers.get("location"), null);
    const body = (await res.json()) as { error: string; error_description: string };
    t.is(body.error, "invalid_client");
    t.regex(body.error_description, message, clientId);
  }
});

test("the documentation links in both metadata documents resolve (no 404)", async (t) => {
  const server = (await (await fetch(`${bed.url}/.well-known/oauth-authorization-server`)).json()) as {
    service_documentation: string;
  };
  const resourceMetadata = (await (
    await fetch(`${bed.url}/.well-known/oauth-protected-resource/api/mcp/v1`)
  ).json()) as { resource_documentation: string };
  for (const link of [server.service_documentation, resourceMetadata.resource_documentation]) {
    t.true(link.startsWith(`${bed.url}/`), link);
    const res = await fetch(link, { headers: { accept: "text/html" } });
    t.is(res.status, 200, link);
    t.regex(res.headers.get("content-type") ?? "", /text\/html/, link);
  }
});
