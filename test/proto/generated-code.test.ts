import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import test from "ava";

const buf = join("node_modules", ".bin", "buf");

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

test("buf lint (STANDARD) is clean", (t) => {
  t.notThrows(() => execFileSync(buf, ["lint"], { encoding: "utf8" }));
});

for (const dir of ["gen", "sdk/typescript/src/gen"]) {
  test(`${dir}/ is exactly what \`npm run generate\` produces from proto/`, async (t) => {
    const out = await mkdtemp(join(tmpdir(), "memory-gen-"));
    try {
      execFileSync(buf, ["generate", "--output", out], { encoding: "utf8" });
      const fresh = join(out, dir);
      const expected = await listFiles(fresh);
      t.deepEqual(await listFiles(dir), expected, "same files");
      for (const file of expected) {
        const [a, b] = await Promise.all([
          readFile(join(fresh, file), "utf8"),
          readFile(join(dir, file), "utf8"),
        ]);
        t.is(b, a, `${dir}/${file} is stale: run npm run generate`);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
}
