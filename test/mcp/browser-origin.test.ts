import test from "ava";
import { type Browser, chromium, type Page } from "playwright-core";
import { readSessionId } from "../../gateway-mcp/session-id.js";
import { CHROMIUM_PATH, HAS_CHROMIUM } from "../dashboard/dashboard-kit.js";
import type { TestTenant } from "../helpers/test-service.js";
import {
  type ClientMetadataDocumentServer,
  startClientMetadataDocumentServer,
} from "../oauth/client-metadata-document-server.js";
import { type OAuthTestBed, startOAuthTestBed } from "../oauth/oauth-kit.js";
import { UNTHROTTLED } from "./post-mcp.js";

// Issue 47, item 3, in a real Chromium: a page on an origin in CORS_ORIGINS can call the MCP
// endpoint and read the headers it needs (Mcp-Session-Id, WWW-Authenticate, Retry-After:
// Access-Control-Expose-Headers); the DNS-rebinding defence refuses what a browser sends from a page
// on a rebound name, from another site and from an opaque origin (`Origin: null`) with 403; the
// service's own pages are served.

const REBOUND_HOST = "rebound.test";

let bed: OAuthTestBed;
let allowedSite: ClientMetadataDocumentServer;
let foreignSite: ClientMetadataDocumentServer;
let tenant: TestTenant;
let throttled: TestTenant;
let browser: Browser;

const PAGE = { headers: { "content-type": "text/html" }, body: "<!doctype html><p>a web client</p>" };

test.before(async () => {
  if (!HAS_CHROMIUM) return;
  allowedSite = await startClientMetadataDocumentServer();
  foreignSite = await startClientMetadataDocumentServer();
  allowedSite.serve("/app.html", () => PAGE);
  foreignSite.serve("/app.html", () => PAGE);
  // A page sandboxed by its CSP has an opaque origin: what its script sends carries `Origin: null`.
  foreignSite.serve("/sandboxed.html", () => ({
    headers: { "content-type": "text/html", "content-security-policy": "sandbox allow-scripts" },
    body: `<!doctype html><script>fetch("${bed.url}/api/mcp/v1", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: "{}" })</script>`,
  }));

  bed = await startOAuthTestBed({ CORS_ORIGINS: allowedSite.origin });
  tenant = await bed.service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  throttled = await bed.service.createTenant({
    scopes: ["read"],
    limitsOverride: { requestsPerMinutePerToken: 100_000, mcpRequestsPerMinutePerIp: 1 },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // A name that resolves to the service's address: what DNS rebinding achieves.
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      `--host-resolver-rules=MAP ${REBOUND_HOST} 127.0.0.1`,
    ],
  });
});

test.after.always(async () => {
  await browser?.close();
  await bed?.stop();
  await allowedSite?.close();
  await foreignSite?.close();
});

const run = HAS_CHROMIUM ? test.serial : test.skip;
const skipped = HAS_CHROMIUM ? "" : ` (skipped: no Chromium at ${CHROMIUM_PATH})`;

async function newPage(t: { teardown(fn: () => Promise<void>): void }): Promise<Page> {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  return context.newPage();
}

interface Seen {
  status: number;
  headers: Record<string, string | null>;
}

/** A POST from the page's own script, as a browser-based MCP client makes it; what the page can read. */
function postFromPage(
  page: Page,
  url: string,
  token: string | undefined,
  body: object,
  headers: Record<string, string> = {},
): Promise<Seen> {
  return page.evaluate(
    async ({ url, token, body, headers }) => {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: JSON.stringify(body),
      });
      await res.text();
      // No named helper functions in here: the bundler's name-keeping wrapper does not exist in the page.
      return {
        status: res.status,
        headers: {
          "mcp-session-id": res.headers.get("mcp-session-id"),
          "www-authenticate": res.headers.get("www-authenticate"),
          "retry-after": res.headers.get("retry-after"),
        },
      };
    },
    { url, token, body, headers },
  );
}

run(
  `a page on a CORS_ORIGINS origin reads Mcp-Session-Id, WWW-Authenticate and Retry-After${skipped}`,
  async (t) => {
    t.timeout(60_000);
    const page = await newPage(t);
    await page.goto(`${allowedSite.origin}/app.html`);
    const endpoint = `${bed.url}/api/mcp/v1`;

    const initialized = await postFromPage(
      page,
      endpoint,
      tenant.token,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: "web client", version: "1" },
        },
      },
      { "mcp-protocol-version": "2025-11-25" },
    );
    t.is(initialized.status, 200);
    t.truthy(
      readSessionId(initialized.headers["mcp-session-id"] ?? undefined),
      "the page read the session id",
    );

    const anonymous = await postFromPage(page, endpoint, undefined, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
    });
    t.is(anonymous.status, 401);
    t.regex(anonymous.headers["www-authenticate"] ?? "", /^Bearer .*resource_metadata="/);

    const ping = { jsonrpc: "2.0", id: 3, method: "ping" };
    t.is((await postFromPage(page, endpoint, throttled.token, ping)).status, 200);
    const limited = await postFromPage(page, endpoint, throttled.token, ping);
    t.is(limited.status, 429);
    t.regex(limited.headers["retry-after"] ?? "", /^[1-9][0-9]*$/);
  },
);

/**
 * The statuses the MCP endpoint answered to the page's requests, as the network saw them (the page
 * itself may be unable to read a refused cross-origin answer).
 */
function endpointStatuses(page: Page, endpointPath: string): number[] {
  const statuses: number[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname === endpointPath && response.request().method() === "POST")
      statuses.push(response.status());
  });
  return statuses;
}

/** A POST a page can send anywhere without a preflight (a "simple" request), as an attacker would. */
async function simplePost(page: Page, url: string): Promise<void> {
  await page.evaluate(async (url) => {
    await fetch(url, {
      method: "POST",
      mode: "no-cors",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }).catch(() => undefined);
  }, url);
}

run(
  `DNS rebinding: a page on a rebound name, another site and an opaque origin get 403; the service's own page is served${skipped}`,
  async (t) => {
    t.timeout(60_000);
    const port = new URL(bed.url).port;

    // The rebound name: to the browser the endpoint is same-origin, so it sends everything a
    // script asks for — the Origin header is the only thing that tells the server.
    const rebound = await newPage(t);
    const reboundStatuses = endpointStatuses(rebound, "/api/mcp/v1");
    await rebound.goto(`http://${REBOUND_HOST}:${port}/health`);
    const seen = await postFromPage(rebound, "/api/mcp/v1", tenant.token, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
    });
    t.is(seen.status, 403);
    t.deepEqual(reboundStatuses, [403]);

    // Another site's script.
    const foreign = await newPage(t);
    const foreignStatuses = endpointStatuses(foreign, "/api/mcp/v1");
    await foreign.goto(`${foreignSite.origin}/app.html`);
    await Promise.all([
      foreign.waitForResponse((r) => r.url() === `${bed.url}/api/mcp/v1`),
      simplePost(foreign, `${bed.url}/api/mcp/v1`),
    ]);
    t.deepEqual(foreignStatuses, [403], "another site");

    // An opaque origin (a sandboxed page): Chromium sends Origin: null.
    const opaque = await newPage(t);
    const opaqueStatuses = endpointStatuses(opaque, "/api/mcp/v1");
    const [answer] = await Promise.all([
      opaque.waitForResponse((r) => r.url() === `${bed.url}/api/mcp/v1`),
      opaque.goto(`${foreignSite.origin}/sandboxed.html`),
    ]);
    t.is(answer.status(), 403);
    t.deepEqual(opaqueStatuses, [403], "an opaque origin");
    // The same simple POST without any Origin (not a browser page) gets past the check to the
    // content-type rule: the 403s above are the Origin refusal and nothing else.
    const noOrigin = await fetch(`${bed.url}/api/mcp/v1`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    t.is(noOrigin.status, 415);

    // The service's own origin (PUBLIC_URL): served.
    const own = await newPage(t);
    await own.goto(`${bed.url}/health`);
    const served = await postFromPage(own, "/api/mcp/v1", tenant.token, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
    });
    t.is(served.status, 200);
  },
);
