import { MAGIC_LINK_LOG_MESSAGE } from "../../core/tenancy/magic-link-mailer.js";
import { SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { type TestService, waitFor } from "../helpers/test-service.js";

/** What signing in needs of a service: its address and its log (the logged sign-in link). */
export type SignInService = Pick<TestService, "httpUrl" | "logLines">;
/** Signing in with a workspace also sets the plan in the database, as the payment webhook would. */
export type WorkspaceService = SignInService & {
  readonly storage: { readonly db: Pick<TestService["storage"]["db"], "sql"> };
};

let ipCounter = 0;

/**
 * A distinct client address per call, sent as X-Forwarded-For. Services under test run with
 * TRUST_PROXY=true so each test has its own per-IP buckets (the spec's 5 sign-ins per 60 s per IP
 * would otherwise be shared by every test of a file, all coming from 127.0.0.1).
 */
export function freshIp(): string {
  ipCounter++;
  return `10.${(process.pid >> 8) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

let emailCounter = 0;
export function freshEmail(label = "user"): string {
  emailCounter++;
  return `${label}-${process.pid}-${emailCounter}-${Math.random().toString(36).slice(2, 7)}@example.test`;
}

/** POST /api/auth/signin/email from `ip`; returns the response. */
export function requestSignIn(
  service: SignInService,
  email: string,
  options: { ip?: string; callbackPath?: string } = {},
): Promise<Response> {
  return fetch(`${service.httpUrl}/api/auth/signin/email`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": options.ip ?? freshIp() },
    body: JSON.stringify({ email, ...(options.callbackPath ? { callbackPath: options.callbackPath } : {}) }),
  });
}

/**
 * The sign-in link the service logged for `email` (no SMTP_URL: the documented log delivery),
 * pointed at the service's real address (PUBLIC_URL of a test service names port 0).
 */
export async function loggedSignInLink(service: SignInService, email: string, after = 0): Promise<URL> {
  const line = await waitFor(
    () =>
      service.logLines
        .slice(after)
        .map((l) => JSON.parse(l) as { msg?: string; to?: string; signInLink?: string })
        .find((l) => l.msg === MAGIC_LINK_LOG_MESSAGE && l.to === email),
    { what: `the logged sign-in link for ${email}` },
  );
  const link = new URL(line.signInLink ?? "");
  const real = new URL(service.httpUrl);
  link.protocol = real.protocol;
  link.host = real.host;
  return link;
}

/** Follows a sign-in link without following the redirect. */
export function followLink(link: URL): Promise<Response> {
  return fetch(link, { redirect: "manual" });
}

/** The session token from a Set-Cookie answer, or undefined. */
export function sessionCookieOf(res: Response): string | undefined {
  for (const header of res.headers.getSetCookie()) {
    const [pair] = header.split(";");
    const eq = pair?.indexOf("=") ?? -1;
    if (pair && eq > 0 && pair.slice(0, eq) === SESSION_COOKIE) return decodeURIComponent(pair.slice(eq + 1));
  }
  return undefined;
}

export function cookieHeader(sessionToken: string): Record<string, string> {
  return { cookie: `${SESSION_COOKIE}=${sessionToken}` };
}

/** Signs a fresh (or given) address in through the real routes; returns the session token. */
export async function signIn(
  service: SignInService,
  email = freshEmail(),
): Promise<{ email: string; session: string; res: Response }> {
  const before = service.logLines.length;
  const started = await requestSignIn(service, email);
  if (started.status !== 200) throw new Error(`sign-in answered ${started.status}: ${await started.text()}`);
  const res = await followLink(await loggedSignInLink(service, email, before));
  const session = sessionCookieOf(res);
  if (res.status !== 303 || !session) throw new Error(`callback answered ${res.status}: ${await res.text()}`);
  return { email, session, res };
}

/** Signs in and onboards a workspace; returns the session (now a member) and the tenant. */
export async function signInWithWorkspace(
  service: WorkspaceService,
  plan: "free" | "api" = "free",
): Promise<{ email: string; session: string; tenantId: string; slug: string }> {
  const { email, session } = await signIn(service);
  const slug = `w-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const res = await fetch(`${service.httpUrl}/api/onboarding`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...cookieHeader(session) },
    body: JSON.stringify({ slug, name: "Workspace", plan: "free" }),
  });
  if (res.status !== 200) throw new Error(`onboarding answered ${res.status}: ${await res.text()}`);
  const { tenantId } = (await res.json()) as { tenantId: string };
  // Paid plans come from the payment webhook; tests set the plan the way the webhook would.
  if (plan !== "free") await service.storage.db.sql`update tenants set plan = ${plan} where id = ${tenantId}`;
  return { email, session, tenantId, slug };
}
