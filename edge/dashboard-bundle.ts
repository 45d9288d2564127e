import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The dashboard's browser code and style sheet (dashboard/), bundled for serving. */
export interface DashboardBundle {
  readonly js: string;
  readonly css: string;
  /** Content hash of both, for cache-busting asset URLs. */
  readonly version: string;
}

const DASHBOARD_DIR = fileURLToPath(new URL("../dashboard/", import.meta.url));

/**
 * Bundles dashboard/main.ts with esbuild (ADR 0190): one minified ES module, no source maps, no
 * network. Built in memory when the first dashboard page is asked for, so processes that never
 * serve the dashboard (tests of other parts, core alone) pay nothing; about 100 ms once.
 */
export async function buildDashboardBundle(): Promise<DashboardBundle> {
  const result = await build({
    entryPoints: [`${DASHBOARD_DIR}main.ts`],
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    target: ["es2022"],
    platform: "browser",
    legalComments: "none",
    logLevel: "silent",
  });
  const js = result.outputFiles[0]?.text;
  if (js === undefined) throw new Error("esbuild produced no output for the dashboard");
  const css = await readFile(`${DASHBOARD_DIR}styles.css`, "utf8");
  const version = createHash("sha256").update(js).update(css).digest("hex").slice(0, 12);
  return { js, css, version };
}

let cached: Promise<DashboardBundle> | undefined;

/** The bundle of this process, built once on first use (a failed build is retried next time). */
export function dashboardBundle(): Promise<DashboardBundle> {
  cached ??= buildDashboardBundle().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
