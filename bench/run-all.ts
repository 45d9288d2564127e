import { spawnSync } from "node:child_process";

// `npm run bench`: every benchmark in turn (each writes bench/results/<name>.json). Run on a quiet
// machine: the targets are latencies on 2 cores. The recall-quality evaluation is separate
// (`npm run eval -- --dataset <dir>`).

const BENCHES = ["startup", "auth", "ingest", "graph", "recall", "mcp", "rest", "webhooks"];
const only = process.argv.slice(2);
let failed = 0;
for (const name of only.length > 0 ? only : BENCHES) {
  process.stdout.write(`\n== bench:${name}\n`);
  const result = spawnSync("npm", ["run", "--silent", `bench:${name}`], { stdio: "inherit" });
  if (result.status !== 0) {
    failed++;
    process.stdout.write(`bench:${name} exited with ${result.status}\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
