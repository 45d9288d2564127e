// The npm mirror reachable from our build machines lacks some foreign-platform
// binaries (e.g. @lancedb/lancedb-darwin-arm64@0.37.1), so `npm install` leaves
// them out of package-lock.json and `npm ci` then refuses the lock as "out of sync".
// This adds the missing optional platform entries (version + os/cpu only); npm
// skips them on other platforms and fetches them normally where they match.
// Run after `npm install <pkg>`: node scripts/lock-foreign-platforms.mjs
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

function platformOf(name) {
  const os = ["darwin", "linux", "win32", "android", "freebsd"].find((o) => name.includes(o));
  const cpu = ["arm64", "armv7", "x64", "ia32", "ppc64", "s390x", "riscv64"].find((c) => name.includes(c));
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu === "armv7" ? "arm" : cpu];
  if (name.includes("musl")) entry.libc = ["musl"];
  else if (name.includes("gnu") || (os === "linux" && !name.includes("musl"))) entry.libc = ["glibc"];
  return os || cpu ? entry : undefined;
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path === "" ? "node_modules" : `${path}/node_modules`;
    const candidates = [`${base}/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => packages[c])) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[`node_modules/${dep}`] = { version, ...platform, optional: true, license: meta.license };
    added++;
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} foreign-platform lock entries`);
