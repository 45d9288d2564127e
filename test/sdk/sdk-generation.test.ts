import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import test from "ava";
import { PLUGINS_MISSING, sdkPlugins } from "./toolchains.js";

// sdk/go/gen and sdk/python/gen are exactly what `npm run generate:sdk` (buf.gen.sdk.yaml, local
// Debian plugins) produces from proto/. The TypeScript SDK's gen/ is checked with gen/ in
// test/proto/generated-code.test.ts (npm plugins only).

const buf = join("node_modules", ".bin", "buf");

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && !e.parentPath.includes("__pycache__"))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

(sdkPlugins ? test : test.skip)(
  `sdk/go/gen and sdk/python/gen are fresh${sdkPlugins ? "" : ` (${PLUGINS_MISSING})`}`,
  async (t) => {
    const out = await mkdtemp(join(tmpdir(), "memory-sdk-gen-"));
    try {
      execFileSync(buf, ["generate", "--template", "buf.gen.sdk.yaml", "--output", out], {
        encoding: "utf8",
      });
      for (const dir of ["sdk/go/gen", "sdk/python/gen"]) {
        const fresh = join(out, dir);
        const expected = await listFiles(fresh);
        t.deepEqual(await listFiles(dir), expected, `${dir}: same files`);
        for (const file of expected) {
          const [a, b] = await Promise.all([
            readFile(join(fresh, file), "utf8"),
            readFile(join(dir, file), "utf8"),
          ]);
          t.is(b, a, `${dir}/${file} is stale: run npm run generate:sdk`);
        }
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  },
);
