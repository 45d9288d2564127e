import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { waitForNoProcessesOf } from "../helpers/data-dir-processes.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { spawnService, stopServiceProcess, waitForHealth } from "../helpers/service-process.js";
import { waitFor } from "../helpers/test-service.js";

// The README's quick start: `npm start` (scripts/start.mjs running the built dist/) with no
// configuration runs everything on embedded defaults; a restart reuses the data; SIGTERM drains and
// exits cleanly.

test("embedded mode: first start bootstraps a token, restart keeps the data, SIGTERM exits 0", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "memory-embedded-"));
  const env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    GRPC_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    // The shared test cache: parsing the dictionaries into a fresh DATA_DIR would dominate the test.
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
  };
  const base = `http://127.0.0.1:${env.PORT}`;
  // Teardowns run last-registered-first: the services (and anything left on DATA_DIR) are stopped
  // before the directory is removed, also when the test fails half-way.
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = spawnService(env, { compiled: true });
  t.teardown(() => stopServiceProcess(first, dataDir));
  await waitForHealth(base);
  const token = await waitFor(() => first.output().match(/kmt_[A-Za-z0-9_-]{43}/)?.[0], {
    what: "the bootstrap token in the output",
  });
  const health = await fetch(`${base}/api/health`, { headers: { authorization: `Bearer ${token}` } });
  t.is(health.status, 200);
  t.regex(first.output(), /embedded PostgreSQL/);
  first.child.kill("SIGTERM");
  t.is(await first.exited, 0);
  t.regex(first.output(), /"msg":"stopped"/);
  await waitForNoProcessesOf(dataDir, 2_000);

  const second = spawnService(env, { compiled: true });
  t.teardown(() => stopServiceProcess(second, dataDir));
  await waitForHealth(base);
  t.false(/kmt_[A-Za-z0-9_-]{43}/.test(second.output()), "no second bootstrap token");
  const again = await fetch(`${base}/api/health`, { headers: { authorization: `Bearer ${token}` } });
  t.is(again.status, 200, "the token issued on the first start still works");
  second.child.kill("SIGINT");
  t.is(await second.exited, 0);
  await waitForNoProcessesOf(dataDir, 2_000);
});
