// `npm run build`: the service's TypeScript as plain JavaScript in dist/, which `npm start` and the
// image run (ADR 0280). esbuild strips the types file by file (no bundling, no type check — that is
// `npm run lint`), so dist/ mirrors the source tree: dist/core/recall/run-recall.js is
// core/recall/run-recall.ts. Files that are not TypeScript (SQL migrations, the pool workers'
// bootstrap, the dashboard's sources, package.json for the version) are copied beside them.
// About half a second on 2 cores. `npm start` runs it before every start and it rebuilds only when a
// source file (path, size or modification time) changed since dist/ was built, so dist/ never lags
// the sources and parallel starts from one checkout (the tests) do not rebuild under each other.
import { createHash } from "node:crypto";
import { cp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "dist");
/** What the service's processes and the operator CLI import (tests, benches and tools stay on tsx). */
const SOURCE_DIRS = [
  "apps",
  "config",
  "lib",
  "gateway-kit",
  "core",
  "edge",
  "gateway-rest",
  "gateway-mcp",
  "gateway-oauth",
  "worker",
  "cli",
  "gen",
];

async function filesUnder(dir) {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(ROOT, join(e.parentPath ?? e.path, e.name)));
}

/** Names the sources' state: every file's path, size and mtime, and this script itself. */
async function sourceStamp(files) {
  const hash = createHash("sha256").update(await readFile(fileURLToPath(import.meta.url)));
  const dashboard = await readdir(join(ROOT, "dashboard"), { recursive: true });
  const all = [...files, ...dashboard.map((f) => join("dashboard", f)), "package.json"].sort();
  for (const f of all) {
    const s = await stat(join(ROOT, f));
    if (s.isFile()) hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex");
}

const STAMP = ".build-stamp";

/**
 * Builds dist/ from the sources. With `ifChanged`, returns without building when dist/ was built
 * from sources in the same state.
 */
export async function buildService({ ifChanged = false } = {}) {
  const started = performance.now();
  const files = (await Promise.all(SOURCE_DIRS.map(filesUnder))).flat();
  const stamp = await sourceStamp(files);
  if (ifChanged) {
    const built = await readFile(join(OUT, STAMP), "utf8").catch(() => "");
    if (built === stamp) return { files: 0, ms: Math.round(performance.now() - started), skipped: true };
  }
  const typescript = files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const assets = files.filter((f) => !f.endsWith(".ts"));
  // Built beside dist/ and swapped in, so a process already running from dist/ (a core and a worker
  // started from one checkout) never imports a half-written tree.
  const next = `${OUT}.${process.pid}.tmp`;
  await rm(next, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: ROOT,
      entryPoints: typescript,
      outdir: next,
      outbase: ROOT,
      bundle: false,
      format: "esm",
      platform: "node",
      target: "node24",
      // Linked maps: `NODE_OPTIONS=--enable-source-maps` shows TypeScript positions in stack traces;
      // off by default, since source-mapped stacks make every captured Error dearer.
      sourcemap: "linked",
      logLevel: "warning",
    });
    await Promise.all([
      ...assets.map((f) => cp(join(ROOT, f), join(next, f))),
      cp(join(ROOT, "dashboard"), join(next, "dashboard"), { recursive: true }),
      cp(join(ROOT, "package.json"), join(next, "package.json")),
    ]);
    await writeFile(join(next, STAMP), stamp);
  } catch (error) {
    await rm(next, { recursive: true, force: true });
    throw error;
  }
  const old = `${OUT}.${process.pid}.old`;
  await rename(OUT, old).catch((error) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(next, OUT).catch(async (error) => {
    // Another build swapped its dist/ in between our two renames: it is of the same sources.
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    await rm(next, { recursive: true, force: true });
  });
  await rm(old, { recursive: true, force: true });
  return { files: typescript.length, ms: Math.round(performance.now() - started), skipped: false };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, ms } = await buildService();
  process.stdout.write(`built ${files} modules into dist/ in ${ms} ms\n`);
}
