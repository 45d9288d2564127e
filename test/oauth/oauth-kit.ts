import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { testModels } from "../graph/graph-test-kit.js";
import { onFreePort } from "../helpers/free-port.js";
import { type ReceivedMail, startMailCatcher } from "../helpers/mail-catcher.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { freshIp } from "../tenancy/sign-in-helper.js";

export const FORM = "application/x-www-form-urlencoded";

export type { ReceivedMail };

export interface OAuthTestBed {
  readonly service: TestService;
  /** PUBLIC_URL of the service: its real address, so metadata and links point at it. */
  readonly url: string;
  readonly mails: ReceivedMail[];
  stop(): Promise<void>;
}

/**
 * The service on a port fixed in advance (PUBLIC_URL must name it: the metadata, the resource and the
 * sign-in links are built from it) with a real SMTP peer catching the magic-link mails.
 */
export async function startOAuthTestBed(extraEnv: Record<string, string> = {}): Promise<OAuthTestBed> {
  const smtp = await startMailCatcher();
  const { mails } = smtp;
  const smtpPort = smtp.port;
  let url = "";
  const service = await onFreePort((port) => {
    url = `http://127.0.0.1:${port}`;
    return startTestService({
      models: testModels(),
      worker: false,
      captureLogs: true,
      env: {
        PORT: String(port),
        PUBLIC_URL: url,
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        TRUST_PROXY: "true",
        MAIL_FROM: "Memory <auth@example.test>",
        ...extraEnv,
      },
    });
  });
  return {
    service,
    url,
    mails,
    async stop() {
      await service.stop();
      await smtp.close();
    },
  };
}

/** The sign-in link of the mail to `email`. */
export async function mailedLink(bed: OAuthTestBed, email: string): Promise<URL> {
  const mail = await waitFor(() => bed.mails.find((m) => m.to.includes(email)), { what: `mail to ${email}` });
  const match = /https?:\/\/\S+\/api\/auth\/callback\/email\?token=[A-Za-z0-9_-]+/.exec(mail.body);
  if (!match) throw new Error(`no sign-in link in the mail: ${mail.body}`);
  return new URL(match[0]);
}

/** A workspace member (api plan) who signs in with `email`. */
export async function memberWithWorkspace(
  bed: OAuthTestBed,
  email: string,
): Promise<{ tenantId: string; slug: string; apiToken: string }> {
  const tenant = await bed.service.createTenant({ plan: "api" });
  const sql = bed.service.storage.db.sql;
  const [user] = await sql<{ id: string }[]>`insert into users (email) values (${email}) returning id`;
  if (!user) throw new Error("user not created");
  await sql`insert into memberships (tenant_id, user_id, role) values (${tenant.tenantId}, ${user.id}, 'owner')`;
  return { tenantId: tenant.tenantId, slug: tenant.slug, apiToken: tenant.token };
}

/** A signed-in member's session cookie, written straight into the tables (for the negative tests). */
export async function memberSession(
  bed: OAuthTestBed,
): Promise<{ cookie: string; tenantId: string; apiToken: string }> {
  const tenant = await bed.service.createTenant({ plan: "api" });
  return {
    cookie: await createSessionCookie(bed.service, tenant.tenantId),
    tenantId: tenant.tenantId,
    apiToken: tenant.token,
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

/** The hidden inputs of a rendered form, unescaped. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
    fields[unescapeHtml(m[1] ?? "")] = unescapeHtml(m[2] ?? "");
  }
  return fields;
}

export async function registerClient(
  bed: OAuthTestBed,
  metadata: Record<string, unknown> = {},
): Promise<{ clientId: string; clientSecret?: string; redirectUri: string }> {
  const redirectUri = "http://127.0.0.1:9/callback";
  const res = await fetch(`${bed.url}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
    body: JSON.stringify({
      client_name: "Test assistant",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { client_id: string; client_secret?: string; redirect_uris: string[] };
  return {
    clientId: body.client_id,
    ...(body.client_secret ? { clientSecret: body.client_secret } : {}),
    redirectUri: body.redirect_uris[0] ?? redirectUri,
  };
}

/** The authorization request parameters a well-behaved MCP client sends. */
export function authorizationParams(
  bed: OAuthTestBed,
  client: { clientId: string; redirectUri: string },
  challenge: string,
  extra: Record<string, string | undefined> = {},
): URLSearchParams {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "read write",
    state: "st-123",
    resource: `${bed.url}/api/mcp/v1`,
    ...extra,
  };
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out.set(k, v);
  return out;
}

/** The consent page's hidden csrf_token for this session, or undefined when no consent page shows. */
export async function consentToken(
  bed: OAuthTestBed,
  cookie: string,
  params: URLSearchParams,
): Promise<string | undefined> {
  const page = await fetch(`${bed.url}/api/oauth/authorize?${params}`, {
    redirect: "manual",
    headers: { cookie, accept: "text/html", "x-forwarded-for": freshIp() },
  });
  return page.status === 200 ? hiddenFields(await page.text()).csrf_token : undefined;
}

/** Consent as the browser sends it; returns the 303's Location. */
export async function consent(
  bed: OAuthTestBed,
  cookie: string,
  params: URLSearchParams,
  scopes: string[] = ["read", "write"],
  /** Where the session's anti-CSRF token is read (default: the consent page of `params`). */
  tokenParams: URLSearchParams = params,
): Promise<{ res: Response; location: URL | undefined }> {
  const form = new URLSearchParams(params);
  form.set("redirect_uri_given", params.has("redirect_uri") ? "1" : "0");
  form.set("requested_scope", params.get("scope") ?? "read write admin");
  form.delete("scope");
  for (const s of scopes) form.append("scope", s);
  form.set("decision", "allow");
  // As a browser: the anti-CSRF token comes from the consent page the session was shown.
  const token = await consentToken(bed, cookie, tokenParams);
  if (token !== undefined) form.set("csrf_token", token);
  const res = await fetch(`${bed.url}/api/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": FORM, cookie, origin: bed.url, "x-forwarded-for": freshIp() },
    body: form,
  });
  const location = res.headers.get("location");
  return { res, location: location ? new URL(location) : undefined };
}

export async function tokenRequest(bed: OAuthTestBed, form: Record<string, string>): Promise<Response> {
  return fetch(`${bed.url}/api/oauth/token`, {
    method: "POST",
    headers: { "content-type": FORM, "x-forwarded-for": freshIp() },
    body: new URLSearchParams(form),
  });
}

/** Registers, consents and exchanges the code: a working token pair for `cookie`'s workspace. */
export async function connectedClient(
  bed: OAuthTestBed,
  cookie: string,
  scopes: string[] = ["read", "write"],
): Promise<{
  clientId: string;
  redirectUri: string;
  accessToken: string;
  refreshToken: string;
  code: string;
  verifier: string;
}> {
  const client = await registerClient(bed);
  const { verifier, challenge } = pkce();
  const params = authorizationParams(bed, client, challenge);
  const { location } = await consent(bed, cookie, params, scopes);
  const code = location?.searchParams.get("code");
  if (!code) throw new Error(`consent gave no code: ${location?.href}`);
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
  return { ...client, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, code, verifier };
}

/** One MCP request with a bearer token: the HTTP status and the parsed answer. */
export async function mcpCall(
  bed: OAuthTestBed,
  token: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${bed.url}/api/mcp/v1`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/**
 * An OAuthClientProvider as an MCP host implements it, in memory: it keeps the registration, the
 * tokens and the PKCE verifier, and instead of opening a browser it records the authorization URL
 * for the test to visit.
 */
export class InMemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test assistant",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return "sdk-state-1";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
}
