import test from "ava";
import {
  cacheLifetimeMs,
  clientIdUrlProblem,
  DEFAULT_CACHE_MS,
  MAX_CACHE_MS,
  MIN_CACHE_MS,
} from "../../core/tenancy/oauth/client-metadata-documents.js";
import { clientLabel } from "../../gateway-oauth/oauth-pages.js";
import { freshIp } from "../tenancy/sign-in-helper.js";
import {
  type ClientMetadataDocumentServer,
  clientDocument,
  startClientMetadataDocumentServer,
} from "./client-metadata-document-server.js";
import {
  authorizationParams,
  consent,
  mcpCall,
  memberSession,
  type OAuthTestBed,
  pkce,
  startOAuthTestBed,
  tokenRequest,
} from "./oauth-kit.js";

// Client ID metadata documents (issue 47, item 3; ADR 0400): a client with no registration names
// itself by the URL of its metadata document. The documents are served by a local web server; the
// service reaches it on loopback only because this test bed sets
// OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS (test/oauth/oauth-endpoints.test.ts proves the default
// refuses it).

let bed: OAuthTestBed;
let documents: ClientMetadataDocumentServer;
let cookie: string;

test.before(async () => {
  documents = await startClientMetadataDocumentServer();
  bed = await startOAuthTestBed({ OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: "true" });
  ({ cookie } = await memberSession(bed));
});

test.after.always(async () => {
  await bed?.stop();
  await documents?.close();
});

const REDIRECT = "http://127.0.0.1:9/callback";

function authorize(params: URLSearchParams, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${bed.url}/api/oauth/authorize?${params}`, {
    redirect: "manual",
    headers: { "x-forwarded-for": freshIp(), ...headers },
  });
}

test("the client ID URL rules of the draft (section 2)", (t) => {
  t.is(clientIdUrlProblem("https://app.example/oauth/client.json", false), undefined);
  t.is(clientIdUrlProblem("https://app.example:8443/client?v=1", false), undefined);
  t.regex(clientIdUrlProblem("http://app.example/client.json", false) ?? "", /https/);
  t.is(clientIdUrlProblem("http://127.0.0.1:3000/client.json", true), undefined);
  t.regex(clientIdUrlProblem("https://app.example/", false) ?? "", /path/);
  t.regex(clientIdUrlProblem("https://app.example", false) ?? "", /path|normal form/);
  t.regex(clientIdUrlProblem("https://user:pw@app.example/c.json", false) ?? "", /credentials/);
  t.regex(clientIdUrlProblem("https://app.example/c.json#x", false) ?? "", /fragment/);
  t.regex(clientIdUrlProblem("https://app.example/a/../c.json", false) ?? "", /dot segments/);
  t.regex(clientIdUrlProblem("https://APP.example/c.json", false) ?? "", /normal form/);
  t.regex(clientIdUrlProblem("not a url", false) ?? "", /absolute URL/);
});

test("cache lifetime follows Cache-Control within bounds; no-store is not cached", (t) => {
  t.is(cacheLifetimeMs(null), DEFAULT_CACHE_MS);
  t.is(cacheLifetimeMs("public, max-age=3600"), 3_600_000);
  t.is(cacheLifetimeMs("max-age=1"), MIN_CACHE_MS);
  t.is(cacheLifetimeMs("max-age=31536000"), MAX_CACHE_MS);
  t.is(cacheLifetimeMs("no-store"), 0);
  t.is(cacheLifetimeMs("max-age=600, no-cache"), 0);
  t.is(cacheLifetimeMs("max-age=abc"), DEFAULT_CACHE_MS);
});

test("authorization server metadata advertises client ID metadata documents and iss", async (t) => {
  const res = await fetch(`${bed.url}/.well-known/oauth-authorization-server`);
  t.like(await res.json(), {
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    registration_endpoint: `${bed.url}/api/oauth/register`,
  });
});

test("a document client connects: consent names the document's host, the code is exchanged with the URL as client_id, the token calls a tool", async (t) => {
  const clientId = documents.serve("/clients/connects.json", (url) => ({ body: clientDocument(url) }));
  const { verifier, challenge } = pkce();
  const params = authorizationParams(bed, { clientId, redirectUri: REDIRECT }, challenge);
  const page = await authorize(params, { cookie, accept: "text/html" });
  t.is(page.status, 200);
  const html = await page.text();
  t.regex(html, /Document assistant/);
  t.true(html.includes(`describes itself at ${new URL(clientId).host}`), "the document's host is shown");
  t.regex(html, /localhost/, "a loopback redirect URI is warned about");

  const { location } = await consent(bed, cookie, params);
  t.is(location?.origin, "http://127.0.0.1:9");
  t.is(location?.searchParams.get("iss"), bed.url);
  t.is(location?.searchParams.get("state"), "st-123");
  const code = location?.searchParams.get("code") ?? "";
  t.regex(code, /.{20,}/);

  const exchanged = await tokenRequest(bed, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: `${bed.url}/api/mcp/v1`,
  });
  t.is(exchanged.status, 200);
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string; scope: string };
  t.is(tokens.scope, "read write");
  const called = await mcpCall(bed, tokens.access_token, "tools/call", {
    name: "service_store_memory",
    arguments: { title: "CIMD", content: "Connected with a client ID metadata document." },
  });
  t.is(called.status, 200);
  t.falsy(called.body.error, JSON.stringify(called.body));

  // Refresh works with the stored registration (no new fetch needed for it to succeed).
  const refreshed = await tokenRequest(bed, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: clientId,
  });
  t.is(refreshed.status, 200);
  // The consent is audited with the document's URL beside the name it gave itself.
  const [audit] = await bed.service.storage.db.sql<{ details: { client: string; client_id?: string } }[]>`
    select details from audit_log where action = 'oauth.authorized' and details->>'client_id' = ${clientId}`;
  t.like(audit?.details, { client: "Document assistant", client_id: clientId });
  // One fetch for the page, the consent and the code: the document was cached (no cache headers).
  t.is(documents.fetches("/clients/connects.json"), 1);
});

test("a document sent with Cache-Control: no-store is fetched on every use", async (t) => {
  const path = "/clients/no-store.json";
  const clientId = documents.serve(path, (url) => ({
    headers: { "cache-control": "no-store" },
    body: clientDocument(url),
  }));
  const params = authorizationParams(bed, { clientId, redirectUri: REDIRECT }, pkce().challenge);
  t.is((await authorize(params, { cookie, accept: "text/html" })).status, 200);
  t.is((await authorize(params, { cookie, accept: "text/html" })).status, 200);
  t.is(documents.fetches(path), 2);
});

test("a redirect URI the document does not list is shown to the user, never redirected to", async (t) => {
  const clientId = documents.serve("/clients/other-redirect.json", (url) => ({ body: clientDocument(url) }));
  const params = authorizationParams(
    bed,
    { clientId, redirectUri: "https://attacker.example/cb" },
    pkce().challenge,
  );
  const res = await authorize(params);
  t.is(res.status, 400);
  t.is(res.headers.get("location"), null);
  t.like(await res.json(), { error: "invalid_request" });
});

const BAD_DOCUMENTS: ReadonlyArray<
  readonly [
    string,
    (url: string) => { status?: number; headers?: Record<string, string>; body: unknown },
    RegExp,
  ]
> = [
  [
    "client_id differs from the URL",
    (url) => ({ body: clientDocument(`${url}?other`) }),
    /client_id is not the URL/,
  ],
  ["not JSON", () => ({ body: "<html>hello</html>" }), /not JSON/],
  ["a JSON array", () => ({ body: [] }), /not a JSON object/],
  [
    "larger than 5 KB",
    (url) => ({ body: clientDocument(url, { client_name: "x".repeat(6000) }) }),
    /larger than 5120 bytes/,
  ],
  [
    "a redirect (never followed)",
    () => ({ status: 302, headers: { location: "https://example.com/c.json" }, body: "" }),
    /HTTP 302/,
  ],
  ["a 404", () => ({ status: 404, body: { error: "gone" } }), /HTTP 404/],
  [
    "a shared-secret auth method",
    (url) => ({ body: clientDocument(url, { token_endpoint_auth_method: "client_secret_basic" }) }),
    /not supported; use none/,
  ],
  ["a client_secret", (url) => ({ body: clientDocument(url, { client_secret: "s3cret" }) }), /client_secret/],
  [
    "no redirect URIs",
    (url) => ({ body: clientDocument(url, { redirect_uris: [] }) }),
    /at least one redirect URI/,
  ],
  [
    "an http redirect URI off loopback",
    (url) => ({ body: clientDocument(url, { redirect_uris: ["http://evil.example/cb"] }) }),
    /https, or http on a loopback/,
  ],
  ["an unknown scope", (url) => ({ body: clientDocument(url, { scope: "read root" }) }), /scope/],
];

for (const [name, answer, message] of BAD_DOCUMENTS) {
  test(`a document with ${name} is invalid_client, shown to the user and not cached`, async (t) => {
    const path = `/clients/bad-${name.replaceAll(/[^a-z0-9]+/gi, "-")}.json`;
    const clientId = documents.serve(path, answer);
    const params = authorizationParams(bed, { clientId, redirectUri: REDIRECT }, pkce().challenge);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const res = await authorize(params);
      t.is(res.status, 401);
      t.is(res.headers.get("location"), null);
      const body = (await res.json()) as { error: string; error_description: string };
      t.is(body.error, "invalid_client");
      t.regex(body.error_description, message);
    }
    t.is(documents.fetches(path), 2, "errors are not cached (draft 4.2)");
  });
}

test("a document that never finishes is given up after the fetch deadline: invalid_client", async (t) => {
  const clientId = documents.serve("/clients/hangs.json", () => ({ hang: true, body: "" }));
  const res = await authorize(
    authorizationParams(bed, { clientId, redirectUri: REDIRECT }, pkce().challenge),
  );
  t.is(res.status, 401);
  const body = (await res.json()) as { error: string; error_description: string };
  t.is(body.error, "invalid_client");
  t.regex(body.error_description, /could not be fetched within 5 s/);
});

test("a document that cannot be reached is invalid_client", async (t) => {
  const params = authorizationParams(
    bed,
    { clientId: "http://127.0.0.1:9/clients/nobody-listens.json", redirectUri: REDIRECT },
    pkce().challenge,
  );
  const res = await authorize(params);
  t.is(res.status, 401);
  t.like(await res.json(), { error: "invalid_client" });
});

test("the token endpoint knows a document client only after an authorization fetched it", async (t) => {
  const res = await tokenRequest(bed, {
    grant_type: "authorization_code",
    code: "A".repeat(43),
    code_verifier: "B".repeat(43),
    client_id: `${documents.origin}/clients/never-seen.json`,
    redirect_uri: REDIRECT,
  });
  t.is(res.status, 401);
  t.like(await res.json(), { error: "invalid_client" });
  t.is(documents.fetches("/clients/never-seen.json"), 0);
});

test("how the pages name a client: deceptive characters removed, a host the user can check beside it", (t) => {
  t.is(clientLabel("Claude", "claude.ai"), "Claude (claude.ai)");
  t.is(clientLabel("", "tools.example"), "tools.example");
  t.is(clientLabel(" \t ", "tools.example"), "tools.example");
  t.is(clientLabel("tools.example", "tools.example"), "tools.example", "not named twice");
  // A right-to-left override would show "Claude" followed by reversed text of the attacker's choosing.
  t.is(clientLabel("Claude\u202Eelpmaxe.live", "evil.example"), "Claudeelpmaxe.live (evil.example)");
  t.is(clientLabel("Two\nlines\u0000", undefined), "Two lines");
  t.is(clientLabel("", undefined), "MCP client");
  t.is(clientLabel("x".repeat(300), undefined).length, 80);
});

/** The consent page's lead sentence for a document client (what names the client to the user). */
async function consentLead(clientId: string): Promise<string> {
  const params = authorizationParams(bed, { clientId, redirectUri: REDIRECT }, pkce().challenge);
  const page = await authorize(params, { cookie, accept: "text/html" });
  const html = await page.text();
  const lead = /<h1>[^<]*<\/h1><p>([^<]*)<\/p>/.exec(html)?.[1];
  if (page.status !== 200 || lead === undefined) throw new Error(`no consent page (${page.status}): ${html}`);
  return lead;
}

test("a document without client_name (or a blank one) is named by its client_id URL's host, everywhere", async (t) => {
  for (const [path, name] of [
    ["/clients/nameless.json", undefined],
    ["/clients/blank-name.json", "   "],
  ] as const) {
    const clientId = documents.serve(path, (url) => {
      const { client_name: _omitted, ...rest } = clientDocument(url);
      return { body: name === undefined ? rest : { ...rest, client_name: name } };
    });
    const host = new URL(clientId).host;
    t.is(
      await consentLead(clientId),
      `${host} asks for access to the workspace ${await workspaceSlug()}.`,
      path,
    );
    // The connection is stored (and listed, audited) under that name too.
    const { location } = await consent(
      bed,
      cookie,
      authorizationParams(bed, { clientId, redirectUri: REDIRECT }, pkce().challenge),
    );
    t.truthy(location?.searchParams.get("code"), path);
    const [row] = await bed.service.storage.db.sql<{ client_name: string }[]>`
      select client_name from oauth_clients where metadata_url = ${clientId}`;
    t.is(row?.client_name, host, path);
  }
});

test("a document's client_uri is not shown as the client's host: the client_id URL's host is", async (t) => {
  const clientId = documents.serve("/clients/impostor.json", (url) => ({
    body: clientDocument(url, { client_name: "Claude\u202Eai.edualc", client_uri: "https://claude.ai" }),
  }));
  const lead = await consentLead(clientId);
  t.true(lead.startsWith(`Claudeai.edualc (${new URL(clientId).host}) asks`), lead);
  t.false(lead.includes("claude.ai"));
});

async function workspaceSlug(): Promise<string> {
  const res = await fetch(`${bed.url}/api/auth/session`, { headers: { cookie } });
  return ((await res.json()) as { tenantSlug: string }).tenantSlug;
}
