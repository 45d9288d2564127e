// `npm start` (and start:core / start:gateway / start:worker): builds dist/ from the sources
// (scripts/build.mjs, half a second; skipped when the sources did not change) and runs the entry
// point's JavaScript in this same process, so signals reach the service itself and no TypeScript
// loader stays resident (ADR 0280).
//   node scripts/start.mjs [apps/all-in-one.ts | apps/core.ts | apps/gateway.ts | apps/worker.ts]
import { stop } from "esbuild";
import { buildService } from "./build.mjs";

/** The processes' composition roots (docs/scaling.md). */
const ENTRIES = ["apps/all-in-one.ts", "apps/core.ts", "apps/gateway.ts", "apps/worker.ts"];
const entry = process.argv[2] ?? "apps/all-in-one.ts";
if (!ENTRIES.includes(entry)) {
  process.stderr.write(`usage: node scripts/start.mjs [${ENTRIES.join(" | ")}] (got ${entry})\n`);
  process.exit(2);
}
const { skipped } = await buildService({ ifChanged: true }).catch((error) => {
  // A read-only checkout with stale dist/, a syntax error esbuild refuses: one line, not a stack.
  process.stderr.write(`could not build dist/ from the sources: ${error.message ?? error}\n`);
  process.exit(1);
});
// esbuild's helper process is not needed until the dashboard is first bundled (it restarts then).
if (!skipped) await stop();
await import(new URL(`../dist/${entry.replace(/\.ts$/, ".js")}`, import.meta.url).href);
