import test, { type ExecutionContext } from "ava";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM_PATH, HAS_CHROMIUM } from "../dashboard/dashboard-kit.js";
import { freshEmail } from "../tenancy/sign-in-helper.js";
import {
  type ClientMetadataDocumentServer,
  clientDocument,
  startClientMetadataDocumentServer,
} from "./client-metadata-document-server.js";
import {
  authorizationParams,
  hiddenFields,
  mailedLink,
  mcpCall,
  memberSession,
  memberWithWorkspace,
  type OAuthTestBed,
  pkce,
  registerClient,
  startOAuthTestBed,
  tokenRequest,
} from "./oauth-kit.js";

// Issue 47, item 4: the consent page's Allow failed in every real browser — the page's referrer
// policy made Chromium send `Origin: null` with the form, which the endpoint refused as cross-site
// (the fetch-based tests set Origin by hand and never saw it). Here a real Chromium goes from the
// authorization URL through the sign-in page, the mailed magic link and the consent page's Allow
// to the client's redirect URI; the code it carries is exchanged and the token calls a tool.

// Issue 47, item 6: the same journey for both ways a client identifies itself — dynamic client
// registration (older clients) and a client ID metadata document, served by a local web server;
// the service may fetch it from loopback only because this bed sets
// OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS explicitly (the default refuses it: oauth-endpoints.test.ts).

let bed: OAuthTestBed;
let documents: ClientMetadataDocumentServer;
let browser: Browser;

test.before(async () => {
  if (!HAS_CHROMIUM) return;
  documents = await startClientMetadataDocumentServer();
  bed = await startOAuthTestBed({ OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: "true" });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update"],
  });
});

test.after.always(async () => {
  await browser?.close();
  await bed?.stop();
  await documents?.close();
});

/**
 * A member signs in from the authorization page, follows the mailed link, sees the consent page and
 * clicks Allow (the page has no scripts: the browser's own form POST). Returns where the browser
 * arrived at the client's redirect URI, and the consent page's text.
 */
async function consentInChromium(
  t: ExecutionContext,
  client: { clientId: string; redirectUri: string },
  challenge: string,
): Promise<{ callback: URL; consentText: string; member: { slug: string } }> {
  const email = freshEmail("browser-oauth");
  const member = await memberWithWorkspace(bed, email);
  const context = await browser.newContext({ locale: "en-US" });
  t.teardown(() => context.close());
  const page = await context.newPage();
  // The client's redirect URI (nothing listens there): the browser's arrival is the result.
  let callback: URL | undefined;
  await page.route(`${client.redirectUri}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/html", body: "<p>connected</p>" });
  });
  // The consent must reach the server as the browser's own form submission (a navigation), not as
  // a script's fetch with a hand-set Origin.
  const consentPosts: Promise<{ method: string; navigation: boolean; origin: string | null }>[] = [];
  page.on("request", (request) => {
    if (request.url() === `${bed.url}/api/oauth/authorize` && request.method() === "POST") {
      consentPosts.push(
        request.allHeaders().then((headers) => ({
          method: request.method(),
          navigation: request.isNavigationRequest(),
          origin: headers.origin ?? null,
        })),
      );
    }
  });

  await page.goto(`${bed.url}/api/oauth/authorize?${authorizationParams(bed, client, challenge)}`);
  await page.getByRole("textbox").fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await page.getByText(/Check your e-mail/).waitFor();

  await page.goto((await mailedLink(bed, email)).href);
  // The link signs in and returns to the authorization request: the consent page.
  await page.getByText("Allow access?").waitFor();
  const consentText = await page.locator("main").innerText();
  await page.getByRole("button", { name: "Allow", exact: true }).click();
  await page.getByText("connected").waitFor();

  t.deepEqual(await Promise.all(consentPosts), [{ method: "POST", navigation: true, origin: bed.url }]);
  if (!callback) throw new Error("the browser never arrived at the redirect URI");
  return { callback, consentText, member };
}

/** The code at the redirect URI is exchanged (PKCE) and the access token calls a tool. */
async function exchangeAndCallTool(
  t: ExecutionContext,
  client: { clientId: string; redirectUri: string },
  callback: URL,
  verifier: string,
): Promise<void> {
  t.is(callback.searchParams.get("error"), null, callback.href);
  t.is(callback.searchParams.get("state"), "st-123");
  t.is(callback.searchParams.get("iss"), bed.url);
  const code = callback.searchParams.get("code") ?? "";
  t.regex(code, /.{20,}/);
  const exchanged = await tokenRequest(bed, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: verifier,
    resource: `${bed.url}/api/mcp/v1`,
  });
  t.is(exchanged.status, 200);
  const { access_token: accessToken } = (await exchanged.json()) as { access_token: string };
  const called = await mcpCall(bed, accessToken, "tools/call", {
    name: "service_store_memory",
    arguments: {
      title: "Browser consent",
      content: `Connected through a real browser as ${client.clientId}.`,
    },
  });
  t.is(called.status, 200);
  t.falsy((called.body as { error?: unknown }).error, JSON.stringify(called.body));
}

const run = HAS_CHROMIUM ? test.serial : test.skip;
const skipped = HAS_CHROMIUM ? "" : ` (skipped: no Chromium at ${CHROMIUM_PATH})`;

run(
  `Chromium, DCR client: sign-in link, consent page, Allow → code at the redirect URI → token → tools/call${skipped}`,
  async (t) => {
    t.timeout(120_000);
    const client = await registerClient(bed, { client_name: "Browser assistant" });
    const { verifier, challenge } = pkce();
    const { callback, consentText, member } = await consentInChromium(t, client, challenge);
    t.true(consentText.includes(member.slug));
    t.true(consentText.includes("Browser assistant"));
    await exchangeAndCallTool(t, client, callback, verifier);
  },
);

run(
  `Chromium, client ID metadata document client: the same journey with its document's URL as client_id${skipped}`,
  async (t) => {
    t.timeout(120_000);
    const path = "/clients/browser-assistant.json";
    const clientId = documents.serve(path, (url) => ({
      body: clientDocument(url, { client_name: "Document browser assistant" }),
    }));
    const client = { clientId, redirectUri: "http://127.0.0.1:9/callback" };
    const { verifier, challenge } = pkce();
    const { callback, consentText, member } = await consentInChromium(t, client, challenge);
    t.true(consentText.includes(member.slug));
    t.true(consentText.includes("Document browser assistant"));
    t.true(consentText.includes(`describes itself at ${new URL(clientId).host}`));
    await exchangeAndCallTool(t, client, callback, verifier);
    t.true(documents.fetches(path) >= 1);
  },
);

// Issue 47, item 4, the path a browser takes when the page hides its origin: under a no-referrer
// policy (the page's old meta tag, a browser setting or an extension) Chromium sends the consent
// form with `Origin: null`. That is accepted only from our own page — Sec-Fetch-Site same-origin and
// the session's anti-CSRF token in the form — never from another origin, not even one of the same
// site that somehow holds the token.

/** A browser context signed in as a fresh workspace member (the session cookie as sign-in sets it). */
async function signedInContext(t: ExecutionContext) {
  const { cookie } = await memberSession(bed);
  const [name = "", value = ""] = cookie.split("=");
  const context = await browser.newContext({ locale: "en-US" });
  t.teardown(() => context.close());
  await context.addCookies([{ name, value, url: bed.url, httpOnly: true, sameSite: "Lax" }]);
  return { context, cookie };
}

/** Records the consent POSTs' Origin, and whether the redirect URI was reached. */
async function watchConsent(page: Page, redirectUri: string) {
  const seen = {
    posts: [] as Promise<string | undefined>[],
    callback: undefined as URL | undefined,
  };
  page.on("request", (request) => {
    if (request.url() === `${bed.url}/api/oauth/authorize` && request.method() === "POST") {
      seen.posts.push(request.allHeaders().then((headers) => headers.origin));
    }
  });
  await page.route(`${redirectUri}**`, async (route) => {
    seen.callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/html", body: "<p>connected</p>" });
  });
  return seen;
}

/** Serves our consent page as a no-referrer page (optionally without its anti-CSRF field). */
async function hideOrigin(page: Page, dropToken: boolean): Promise<void> {
  await page.route(
    (url) => url.pathname === "/api/oauth/authorize",
    async (route) => {
      if (route.request().method() !== "GET") return route.continue();
      const response = await route.fetch();
      let body = (await response.text()).replace(
        '<meta name="referrer" content="same-origin">',
        '<meta name="referrer" content="no-referrer">',
      );
      if (dropToken) body = body.replace(/<input type="hidden" name="csrf_token" value="[^"]*">/, "");
      return route.fulfill({ response, body });
    },
  );
}

run(
  `Chromium, consent page under no-referrer: Allow is sent with Origin: null and accepted with the form's token${skipped}`,
  async (t) => {
    t.timeout(120_000);
    const { context } = await signedInContext(t);
    const page = await context.newPage();
    const client = await registerClient(bed, { client_name: "Private browser assistant" });
    const seen = await watchConsent(page, client.redirectUri);
    await hideOrigin(page, false);
    const { verifier, challenge } = pkce();
    await page.goto(`${bed.url}/api/oauth/authorize?${authorizationParams(bed, client, challenge)}`);
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    await page.getByText("connected").waitFor();
    t.deepEqual(await Promise.all(seen.posts), ["null"]);
    if (!seen.callback) throw new Error("the browser never arrived at the redirect URI");
    await exchangeAndCallTool(t, client, seen.callback, verifier);
  },
);

run(
  `Chromium, consent page under no-referrer without the anti-CSRF token: Origin: null is refused (403)${skipped}`,
  async (t) => {
    t.timeout(120_000);
    const { context } = await signedInContext(t);
    const page = await context.newPage();
    const client = await registerClient(bed);
    const seen = await watchConsent(page, client.redirectUri);
    await hideOrigin(page, true);
    await page.goto(`${bed.url}/api/oauth/authorize?${authorizationParams(bed, client, pkce().challenge)}`);
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${bed.url}/api/oauth/authorize` && r.request().method() === "POST",
      ),
      page.getByRole("button", { name: "Allow", exact: true }).click(),
    ]);
    t.is(answer.status(), 403);
    await page.getByText("cross-site consent refused").waitFor();
    t.deepEqual(await Promise.all(seen.posts), ["null"]);
    t.is(seen.callback, undefined);
  },
);

run(
  `Chromium, another origin of the same site posts the consent form with Origin: null and the session's own token: refused (403)${skipped}`,
  async (t) => {
    t.timeout(120_000);
    const { context, cookie } = await signedInContext(t);
    const client = await registerClient(bed);
    const params = authorizationParams(bed, client, pkce().challenge);
    // The attacker has every field of the consent form, the anti-CSRF token included.
    const consentHtml = await (
      await fetch(`${bed.url}/api/oauth/authorize?${params}`, { headers: { cookie, accept: "text/html" } })
    ).text();
    const fields: Record<string, string> = { ...hiddenFields(consentHtml), scope: "read", decision: "allow" };
    t.truthy(fields.csrf_token);
    const inputs = Object.entries(fields)
      .map(
        ([name, value]) => `<input type="hidden" name="${name}" value="${value.replaceAll('"', "&quot;")}">`,
      )
      .join("");
    const path = `/attack-${Math.random().toString(36).slice(2)}.html`;
    documents.serve(path, () => ({
      headers: { "content-type": "text/html" },
      body: `<!doctype html><meta name="referrer" content="no-referrer"><form method="post" action="${bed.url}/api/oauth/authorize">${inputs}</form><script>document.forms[0].submit()</script>`,
    }));
    const page = await context.newPage();
    const seen = await watchConsent(page, client.redirectUri);
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${bed.url}/api/oauth/authorize` && r.request().method() === "POST",
      ),
      page.goto(`${documents.origin}${path}`),
    ]);
    t.is(answer.status(), 403);
    await page.getByText("cross-site consent refused").waitFor();
    // 127.0.0.1 on another port: the same site (the Lax cookie goes along), not the same origin. With
    // Origin: null and a valid token, only Sec-Fetch-Site (same-site, which Playwright does not
    // show) is left to refuse it — as it did.
    t.deepEqual(await Promise.all(seen.posts), ["null"]);
    t.is(seen.callback, undefined);
  },
);
