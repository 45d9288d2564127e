import { spawn } from "node:child_process";
import { Writable } from "node:stream";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { enqueueJob } from "../../core/store/job-queue.js";
import { startWorker } from "../../worker/create-worker.js";
import { createTestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 15, item 3: jobs locked by a worker process that was killed (-9) stayed locked until
// graphile-worker's 4-hour expiry. A live worker now releases the locks of a process that stopped
// beating (forceUnlockWorkers), so the job runs again within a minute.

test("a job locked by a SIGKILLed worker process runs on another worker within a minute", async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());

  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/faults/fixtures/locking-worker.ts", database.url],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  t.teardown(() => child.kill("SIGKILL"));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  await waitFor(() => (out.includes("STARTED") ? true : undefined), {
    timeoutMs: 60_000,
    what: "worker start",
  });

  const jobId = await enqueueJob(database.db.sql, "fault_probe", {});
  await waitFor(() => (out.includes(`LOCKED ${jobId}`) ? true : undefined), {
    timeoutMs: 30_000,
    what: "the child to lock the job",
  });
  child.kill("SIGKILL");
  await exited;
  const [locked] = await database.db.sql<{ locked_by: string | null }[]>`
    select locked_by from graphile_worker.jobs where id = ${jobId}`;
  t.truthy(locked?.locked_by, "the dead process still holds the lock");

  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString("utf8"));
      done();
    },
  });
  const ran: string[] = [];
  const worker = await startWorker({
    db: database.db,
    databaseUrl: database.url,
    concurrency: 1,
    logger: createLogger("warn", sink),
    tasks: {
      fault_probe: async (_payload, helpers) => {
        ran.push(helpers.job.id);
      },
    },
  });
  t.teardown(() => worker.stop());
  await waitFor(() => (ran.includes(jobId) ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 250,
    what: "the job to run on the live worker",
  });
  t.deepEqual(ran, [jobId]);
  t.true(logs.some((l) => l.includes("released the job locks of a worker that stopped reporting")));
  const [left] = await database.db.sql<{ n: number }[]>`
    select count(*)::int as n from graphile_worker.jobs where id = ${jobId}`;
  t.is(left?.n, 0, "the job completed");
});
