import type { LookupAddress } from "node:dns";
import test from "ava";
import {
  DEFAULT_WEB_FETCH_LIMITS,
  fetchWebPage,
  WebFetchFailure,
} from "../../core/ingest/web/fetch-web-page.js";
import { createOutboundGuard, type OutboundGuard } from "../../lib/net/outbound-guard.js";
import { startWebPageServer, type WebPageServer } from "./web-page-server.js";

// FetchWebPage's fetcher with the production guard (WEB_FETCH_ALLOW_PRIVATE_URLS unset): loopback,
// private, link-local and metadata addresses are refused before anything is sent — also when a
// public-looking name resolves to one, also when the name re-resolves between the check and the
// connection (DNS rebinding), also as a redirect's target. The local server counts what reached it.

let pages: WebPageServer;

test.before(async () => {
  pages = await startWebPageServer();
  pages.route("/", { type: "text/plain", body: "local secret" });
  pages.route("/to-private", { status: 302, body: "", headers: { location: "http://10.1.2.3/internal" } });
  pages.route("/to-metadata", {
    status: 307,
    body: "",
    headers: { location: "http://169.254.169.254/latest/meta-data/" },
  });
  pages.route("/to-loopback-name", { status: 302, body: "", headers: { location: "http://localhost/" } });
});

test.after.always(async () => {
  await pages?.close();
});

const strict = (resolve?: (host: string) => Promise<readonly LookupAddress[]>): OutboundGuard =>
  createOutboundGuard({ allowPrivate: false, ...(resolve ? { resolve } : {}) });

async function refused(guard: OutboundGuard, url: string): Promise<string> {
  const error = await fetchWebPage(guard, url, DEFAULT_WEB_FETCH_LIMITS).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WebFetchFailure)) throw new Error(`${url} was not refused: ${String(error)}`);
  if (error.kind !== "refused") throw new Error(`${url}: ${error.kind}: ${error.message}`);
  return error.message;
}

test("without the allowance, loopback, private, link-local and metadata addresses are refused and never contacted", async (t) => {
  const port = new URL(pages.url).port;
  const cases: [string, RegExp][] = [
    [`http://127.0.0.1:${port}/`, /127\.0\.0\.1 is loopback/],
    [`http://localhost:${port}/`, /localhost resolves to (127\.0\.0\.1|::1), which is loopback/],
    [`http://[::1]:${port}/`, /::1 is loopback/],
    [`http://[::ffff:127.0.0.1]:${port}/`, /IPv4-mapped 127\.0\.0\.1 \(loopback\)/],
    [`http://2130706433:${port}/`, /127\.0\.0\.1 is loopback/],
    ["http://10.0.0.8/", /10\.0\.0\.8 is private/],
    ["http://192.168.1.1/", /192\.168\.1\.1 is private/],
    ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is link-local/],
    ["http://[fd00:ec2::254]/", /is unique-local/],
    ["http://0.0.0.0/", /0\.0\.0\.0 is unspecified/],
  ];
  for (const [url, message] of cases) t.regex(await refused(strict(), url), message, url);
  t.deepEqual(pages.requests, [], "nothing reached the local server");
});

test("a public-looking name that resolves to a loopback address is refused", async (t) => {
  const guard = strict(async () => [{ address: "127.0.0.1", family: 4 }]);
  t.regex(
    await refused(guard, `http://pages.example.com:${new URL(pages.url).port}/`),
    /pages\.example\.com resolves to 127\.0\.0\.1, which is loopback/,
  );
  t.deepEqual(pages.requests, []);
});

test("DNS rebinding: a name that resolved to a public address at the check and to loopback at the connection is refused at the socket", async (t) => {
  let lookups = 0;
  const guard = strict(async () => {
    lookups++;
    return [{ address: lookups === 1 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
  });
  const message = await refused(guard, `http://rebind.example.com:${new URL(pages.url).port}/`);
  t.regex(message, /rebind\.example\.com resolves to 127\.0\.0\.1, which is loopback/);
  t.true(lookups >= 2, "the connection resolved the name again, through the guard");
  t.deepEqual(pages.requests, []);
});

test("each redirect is checked like the first URL: a redirect to a private, metadata or loopback target is refused", async (t) => {
  // Only the first hop's server may be reached: a guard that lets this local server's own URLs
  // through and judges every other URL as production does — as a public page that redirects would be.
  const reachable = createOutboundGuard({ allowPrivate: true });
  const production = strict();
  const guard: OutboundGuard = {
    ...reachable,
    urlProblem: (url, rules) =>
      url.startsWith(pages.url) ? reachable.urlProblem(url, rules) : production.urlProblem(url, rules),
  };
  t.regex(
    await refused(guard, `${pages.url}/to-private`),
    /redirect to http:\/\/10\.1\.2\.3\/internal refused: 10\.1\.2\.3 is private/,
  );
  t.regex(await refused(guard, `${pages.url}/to-metadata`), /redirect to .*169\.254\.169\.254 is link-local/);
  t.regex(
    await refused(guard, `${pages.url}/to-loopback-name`),
    /redirect to http:\/\/localhost\/ refused: localhost resolves to .* loopback/,
  );
  t.deepEqual(pages.requests, ["/to-private", "/to-metadata", "/to-loopback-name"]);
});
