import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import postgres from "postgres";
import { loadLexicon } from "../core/models/lexicon/load-lexicon.js";
import { startEmbeddedPostgres } from "../core/store/embedded-postgres.js";
import { TEST_LEXICON_CACHE_DIR } from "./helpers/lexicon-cache.js";
import { ensureTemplateDatabase } from "./helpers/template-database.js";

// `npm test`: finds a PostgreSQL for the test run (TEST_DATABASE_URL, else the local server on
// 127.0.0.1:5432, else one embedded PostgreSQL for the whole run), prepares a migrated template
// database that each test file clones, then runs ava with the given arguments.

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres";

async function reachable(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

let adminUrl = process.env.TEST_DATABASE_URL || DEFAULT_URL;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!(await reachable(adminUrl))) {
  if (process.env.TEST_DATABASE_URL) {
    process.stderr.write(`TEST_DATABASE_URL is not reachable\n`);
    process.exit(1);
  }
  process.stderr.write("no PostgreSQL on 127.0.0.1:5432: starting an embedded one for this test run\n");
  const server = await startEmbeddedPostgres({
    dataDir: resolve(".tmp/test-postgres"),
    port: 54398,
    database: "postgres",
  });
  adminUrl = server.url;
  stopEmbedded = () => server.stop();
}

// dist/ as `npm start` runs it, built once here: the tests that start the compiled service then find it
// current instead of rebuilding it under each other (scripts/build.mjs).
const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);
const template = await ensureTemplateDatabase(adminUrl);
// Parse the dictionaries once, before test files start services in parallel (each would otherwise
// wait on the cache lock, or time out, while the first one parses).
const lexicon = await loadLexicon({ cacheDirectory: TEST_LEXICON_CACHE_DIR });
if (lexicon.warning) process.stderr.write(`${lexicon.warning}\n`);
// ava's command as its package.json names it (the file moved between majors), run on this Node.
const avaBin = (JSON.parse(readFileSync("node_modules/ava/package.json", "utf8")) as { bin: { ava: string } })
  .bin.ava;
const ava = spawn(process.execPath, [resolve("node_modules/ava", avaBin), ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TEST_DATABASE_URL: adminUrl, TEST_TEMPLATE_DATABASE: template },
});
// A signal to this process alone (its group's reaches ava directly) is passed on to ava; the run then
// ends the usual way below, stopping its embedded PostgreSQL rather than leaving it running (issue 51).
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (ava.exitCode === null && ava.signalCode === null) ava.kill(signal);
  });
}
const code = await new Promise<number>((done) => ava.on("exit", (c) => done(c ?? 1)));
await stopEmbedded?.();
process.exit(code);
