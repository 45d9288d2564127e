import { gzipSync } from "node:zlib";
import type { BrowserContext } from "playwright-core";
import { HAS_CHROMIUM, startDashboardBed } from "../test/dashboard/dashboard-kit.js";
import { createSessionCookie } from "../test/rest/sessions.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:dashboard` (issue 49 "Measure"): per dashboard page, in headless Chromium on
// loopback with a cold cache (a new browser context for every load, so app.js and app.css come over
// the wire each time): the script and style bytes as served (raw and as transferred, i.e. after the
// edge's compression) and the first render — from the navigation's start to the page's own <h1>
// being visible (the shell first shows "Loading…"; the h1 appears once app.js ran and the page's
// first API answers arrived), plus the browser's first contentful paint. Median of ROUNDS loads.
// Writes bench/results/dashboard.json.

const ROUNDS = Number(process.argv[2] ?? 7);

/** Path, signed in?, heading that marks the page as rendered. */
const PAGES: readonly (readonly [string, boolean, string])[] = [
  ["/dashboard", false, "Sign in"],
  ["/dashboard", true, "Overview"],
  ["/dashboard/explorer", true, "Memory explorer"],
  ["/dashboard/tokens", true, "API tokens"],
  ["/dashboard/webhooks", true, "Webhooks"],
  ["/dashboard/keys", true, "Provider keys"],
  ["/dashboard/billing", true, "Plan and billing"],
  ["/dashboard/exports", true, "Exports"],
  ["/dashboard/kuendigung", false, "Cancel a subscription"],
];

interface Load {
  firstRenderMs: number;
  fcpMs: number;
  scriptBytes: number;
  scriptTransferred: number;
  /** The script gzipped at level 6 here (what a gzip-only client would get). */
  scriptGzip: number;
  styleBytes: number;
  styleTransferred: number;
  scriptEncoding: string;
  apiCalls: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : Math.round(((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2);
};

if (!HAS_CHROMIUM) {
  process.stderr.write("bench:dashboard needs Chromium (apt-get install chromium, or set CHROMIUM_PATH)\n");
  process.exit(1);
}

const bed = await startDashboardBed();
try {
  const tenant = await bed.service.createTenant({ plan: "api" });
  // A workspace with something to show: a few memories for the overview and the explorer.
  for (let i = 0; i < 8; i++) {
    await fetch(`${bed.url}/api/v1/memory/entries`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        memory_type: "semantic",
        title: `Note ${i}`,
        content: `A note about topic ${i}.`,
      }),
    });
  }
  const cookie = await createSessionCookie(bed.service, tenant.tenantId);
  const [name = "", value = ""] = cookie.split("=");

  // One load to build the bundle (the edge bundles on the first dashboard request) outside the figures.
  await fetch(`${bed.url}/dashboard/app.js`);

  const loadOnce = async (path: string, signedIn: boolean, heading: string): Promise<Load> => {
    const context: BrowserContext = await bed.browser.newContext({
      locale: "en-GB",
      viewport: { width: 1100, height: 800 },
    });
    try {
      if (signedIn)
        await context.addCookies([{ name, value, url: bed.url, httpOnly: true, sameSite: "Lax" }]);
      const page = await context.newPage();
      const load: Load = {
        firstRenderMs: 0,
        fcpMs: 0,
        scriptBytes: 0,
        scriptTransferred: 0,
        scriptGzip: 0,
        styleBytes: 0,
        styleTransferred: 0,
        scriptEncoding: "identity",
        apiCalls: 0,
      };
      const sized: Promise<void>[] = [];
      page.on("response", (response) => {
        const url = new URL(response.url());
        if (url.pathname.startsWith("/api/")) load.apiCalls++;
        const kind = url.pathname.endsWith(".js") ? "script" : url.pathname.endsWith(".css") ? "style" : "";
        if (!kind) return;
        sized.push(
          (async () => {
            const body = await response.body();
            const sizes = await response.request().sizes();
            if (kind === "script") {
              load.scriptBytes += body.length;
              load.scriptGzip += gzipSync(body).length;
              load.scriptTransferred += sizes.responseBodySize;
              load.scriptEncoding = response.headers()["content-encoding"] ?? "identity";
            } else {
              load.styleBytes += body.length;
              load.styleTransferred += sizes.responseBodySize;
            }
          })(),
        );
      });
      const started = performance.now();
      await page.goto(`${bed.url}${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      load.firstRenderMs = Math.round(performance.now() - started);
      load.fcpMs = Math.round(
        await page.evaluate<number>(
          "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0",
        ),
      );
      await Promise.all(sized);
      return load;
    } finally {
      await context.close();
    }
  };

  const pages: Record<string, unknown>[] = [];
  for (const [path, signedIn, heading] of PAGES) {
    const loads: Load[] = [];
    for (let i = 0; i < ROUNDS; i++) loads.push(await loadOnce(path, signedIn, heading));
    const first = loads[0];
    const row = {
      page: `${path}${signedIn ? "" : " (signed out)"}`,
      firstRenderMsMedian: median(loads.map((l) => l.firstRenderMs)),
      firstRenderMsMax: Math.max(...loads.map((l) => l.firstRenderMs)),
      fcpMsMedian: median(loads.map((l) => l.fcpMs)),
      scriptBytes: first?.scriptBytes,
      scriptTransferred: first?.scriptTransferred,
      scriptGzip: first?.scriptGzip,
      scriptEncoding: first?.scriptEncoding,
      styleBytes: first?.styleBytes,
      styleTransferred: first?.styleTransferred,
      apiCalls: first?.apiCalls,
    };
    pages.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  writeBenchResult("dashboard", {
    rounds: ROUNDS,
    method:
      "headless Chromium, loopback, a new browser context (cold cache) per load; first render = goto until the page's h1 is visible; medians",
    pages,
  });
} finally {
  await bed.stop();
}
