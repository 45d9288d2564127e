import { spawnSync } from "node:child_process";
import test from "ava";

// scripts/start.mjs (npm start, start:core, start:gateway, start:worker; ADR 0280) runs only the
// processes' composition roots: another module would be imported, do nothing and exit 0.

test("the start script refuses anything but the four entry points, with its usage and exit 2", (t) => {
  for (const entry of ["apps/start-service.ts", "apps/nope.ts", "../etc/passwd"]) {
    const result = spawnSync(process.execPath, ["scripts/start.mjs", entry], {
      encoding: "utf8",
      timeout: 30_000,
    });
    t.is(result.status, 2, entry);
    t.regex(result.stderr, /^usage: node scripts\/start\.mjs \[apps\/all-in-one\.ts \| apps\/core\.ts/);
    t.regex(result.stderr, new RegExp(`\\(got ${entry.replace(/[./]/g, "\\$&")}\\)\\n$`));
  }
});
