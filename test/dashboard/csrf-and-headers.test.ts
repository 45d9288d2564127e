import test from "ava";
import { onFreePort } from "../helpers/free-port.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";

// CSRF protection of cookie-authenticated writes and the dashboard's security headers (issue 19
// "Safety"), over plain HTTP as a browser's requests look: Origin, Sec-Fetch-Site, the custom
// header. API tokens and non-browser clients must keep working unchanged.

let service: TestService;
let url: string;
let tenant: TestTenant;
let cookie: string;

test.before(async () => {
  service = await onFreePort((port) => {
    url = `http://127.0.0.1:${port}`;
    return startTestService({
      worker: false,
      env: { PORT: String(port), PUBLIC_URL: url, CORS_ORIGINS: "https://app.example.test" },
    });
  });
  tenant = await service.createTenant({ plan: "api" });
  cookie = await createSessionCookie(service, tenant.tenantId);
});

test.after.always(async () => {
  await service?.stop();
});

/** The anti-CSRF token the dashboard shell carries for this session. */
async function pageToken(sessionCookie: string): Promise<string> {
  const html = await (await fetch(`${url}/dashboard/tokens`, { headers: { cookie: sessionCookie } })).text();
  const match = /<meta name="csrf-token" content="([A-Za-z0-9_-]*)">/.exec(html);
  if (!match?.[1]) throw new Error(`no csrf token in the page: ${html}`);
  return match[1];
}

const createToken = (
  headers: Record<string, string>,
  body = JSON.stringify({ name: "x", scopes: ["read"] }),
) =>
  fetch(`${url}/api/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

// Serial: it counts the session's tokens before and after, and the same-origin test below creates one.
test.serial("a cross-site form post cannot use the session cookie (403, nothing created)", async (t) => {
  const before = (await (await fetch(`${url}/api/tokens`, { headers: { cookie } })).json()) as unknown[];
  const form = await fetch(`${url}/api/tokens`, {
    method: "POST",
    headers: {
      cookie,
      "content-type": "application/x-www-form-urlencoded",
      origin: "https://evil.example",
      "sec-fetch-site": "cross-site",
    },
    body: "name=x&scopes=read",
  });
  t.is(form.status, 403);
  const json = await createToken({ cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" });
  t.is(json.status, 403);
  // Same site, other origin (another port on the same host): refused too.
  const sibling = await createToken({ cookie, origin: "http://127.0.0.1:1", "sec-fetch-site": "same-site" });
  t.is(sibling.status, 403);
  const after = (await (await fetch(`${url}/api/tokens`, { headers: { cookie } })).json()) as unknown[];
  t.is(after.length, before.length);
});

test("a same-origin browser write needs the session's token in X-CSRF-Token", async (t) => {
  const browser = { cookie, origin: url, "sec-fetch-site": "same-origin" };
  const without = await createToken(browser);
  t.is(without.status, 403);
  t.regex(((await without.json()) as { error: string }).error, /x-csrf-token/);
  t.is((await createToken({ ...browser, "x-csrf-token": "A".repeat(43) })).status, 403);
  const token = await pageToken(cookie);
  const other = await pageToken(await createSessionCookie(service, tenant.tenantId));
  t.not(token, other, "each session has its own token");
  t.is((await createToken({ ...browser, "x-csrf-token": other })).status, 403);
  const ok = await createToken({ ...browser, "x-csrf-token": token });
  t.is(ok.status, 200, await ok.text());
});

test("API tokens and non-browser clients are unaffected", async (t) => {
  // A bearer token from anywhere: the cookie is not used, so there is nothing to forge.
  const bearer = await fetch(`${url}/api/memory/recall`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tenant.token}`,
      "content-type": "application/json",
      origin: "https://elsewhere.example",
    },
    body: JSON.stringify({ query: "anything" }),
  });
  t.is(bearer.status, 200);
  // A script holding its own cookie (no Origin, no Fetch Metadata: not a browser).
  t.is((await createToken({ cookie })).status, 200);
  // An origin the operator allowed with credentials (CORS_ORIGINS) keeps working as before.
  const allowed = await createToken({
    cookie,
    origin: "https://app.example.test",
    "sec-fetch-site": "cross-site",
  });
  t.is(allowed.status, 200);
  // Reads stay reads: a cross-origin GET with the cookie is not refused by the guard.
  const read = await fetch(`${url}/api/stats`, { headers: { cookie, origin: "https://evil.example" } });
  t.is(read.status, 200);
});

test("dashboard pages: strict CSP, no framing, no inline script; assets from this origin", async (t) => {
  const res = await fetch(`${url}/dashboard/webhooks`, { headers: { "accept-language": "de-DE,de;q=0.9" } });
  t.is(res.status, 200);
  const csp = res.headers.get("content-security-policy") ?? "";
  t.regex(csp, /default-src 'none'/);
  t.regex(csp, /script-src 'self'(;|$)/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.notRegex(csp, /unsafe-inline|unsafe-eval|https?:/);
  t.is(res.headers.get("x-frame-options"), "DENY");
  t.is(res.headers.get("x-content-type-options"), "nosniff");
  t.is(res.headers.get("cache-control"), "no-store");
  const html = await res.text();
  t.regex(html, /<html lang="de">/);
  t.notRegex(html, /<script(?![^>]*\ssrc=)[^>]*>/, "no inline script");
  t.notRegex(html, /https?:\/\//, "nothing from another host");
  const js = await fetch(`${url}/dashboard/assets/app.js`);
  t.is(js.status, 200);
  t.regex(js.headers.get("content-type") ?? "", /^text\/javascript/);
  t.is(js.headers.get("x-frame-options"), "DENY");
  const css = await fetch(`${url}/dashboard/assets/app.css`);
  t.regex(css.headers.get("content-type") ?? "", /^text\/css/);
});

test("/onboarding (where a first sign-in lands) forwards to the dashboard's onboarding page", async (t) => {
  const res = await fetch(`${url}/onboarding`, { redirect: "manual" });
  t.is(res.status, 303);
  t.is(res.headers.get("location"), "/dashboard/onboarding");
});
