// `npm start` (and start:core / start:gateway / start:worker): builds dist/ from the sources
// (scripts/build.mjs, half a second; skipped when the sources did not change) and runs the entry point's JavaScript in this same process, so
// signals reach the service itself and no TypeScript loader stays resident (ADR 0280).
//   node scripts/start.mjs [apps/all-in-one.ts | apps/core.ts | apps/gateway.ts | apps/worker.ts]
import { stop } from "esbuild";
import { buildService } from "./build.mjs";

const entry = process.argv[2] ?? "apps/all-in-one.ts";
if (!/^apps\/[a-z-]+\.ts$/.test(entry)) {
  process.stderr.write(`usage: node scripts/start.mjs apps/<entry>.ts (got ${entry})\n`);
  process.exit(2);
}
const { skipped } = await buildService({ ifChanged: true });
// esbuild's helper process is not needed until the dashboard is first bundled (it restarts then).
if (!skipped) await stop();
await import(new URL(`../dist/${entry.replace(/\.ts$/, ".js")}`, import.meta.url).href);
