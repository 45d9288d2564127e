import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openVectorStore } from "../core/vectors/lancedb-vector-store.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:lancedb-processes`: do concurrent LanceDB writers in separate processes lose rows on
// local disk? Each trial starts PROCESSES processes on a fresh (tenant, space) table — so they also
// race to create it — each appending WRITES batches of ROWS rows (as core's inline path and the
// worker do) while closing the validity of earlier rows (as update_fact does). Then the rows are
// counted against what every process reported written. docs/scaling.md quotes the result.

const PROCESSES = Number(process.env.PROCESSES ?? 4);
const WRITES = Number(process.env.WRITES ?? 10);
const ROWS = Number(process.env.ROWS ?? 4);
const TRIALS = Number(process.env.TRIALS ?? 5);

if (process.argv[2] === "--writer") {
  const [, , , uri = "", tenantId = "", startAt = "0"] = process.argv;
  const vectors = await openVectorStore(uri);
  // Start together: process start-up (tsx, LanceDB) takes seconds and would stagger the writers.
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
  let written = 0;
  let failed = 0;
  const memoryIds: string[] = [];
  for (let w = 0; w < WRITES; w++) {
    const memoryId = randomUUID();
    const rows = Array.from({ length: ROWS }, () => ({
      chunkId: randomUUID(),
      memoryId,
      vector: Float32Array.from({ length: 8 }, () => Math.random()),
      validFrom: new Date(),
      validTo: null,
    }));
    try {
      await vectors.upsert(tenantId, "bench", rows);
      written += rows.length;
      memoryIds.push(memoryId);
      if (w % 3 === 2) await vectors.setValidTo(tenantId, memoryIds.slice(-2, -1), new Date());
    } catch (error) {
      failed += rows.length;
      process.stderr.write(`${String(error)}\n`);
    }
  }
  vectors.close();
  process.stdout.write(JSON.stringify({ written, failed }));
  process.exit(0);
}

const dir = await mkdtemp(join(tmpdir(), "lancedb-processes-"));
const trials: { expected: number; counted: number; failedWrites: number; ms: number }[] = [];
try {
  for (let trial = 0; trial < TRIALS; trial++) {
    const tenantId = randomUUID();
    const startAt = Date.now() + 6000;
    const results = await Promise.all(
      Array.from(
        { length: PROCESSES },
        () =>
          new Promise<{ written: number; failed: number }>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ["--import", "tsx", "bench/lancedb-processes.ts", "--writer", dir, tenantId, String(startAt)],
              { stdio: ["ignore", "pipe", "inherit"] },
            );
            let out = "";
            child.stdout.on("data", (d: Buffer) => {
              out += d.toString("utf8");
            });
            child.on("exit", (code) =>
              code === 0
                ? resolve(JSON.parse(out) as { written: number; failed: number })
                : reject(new Error(`writer exited ${code}`)),
            );
          }),
      ),
    );
    const vectors = await openVectorStore(dir);
    const counted = await vectors.count(tenantId, "bench");
    vectors.close();
    const expected = results.reduce((n, r) => n + r.written, 0);
    const failedWrites = results.reduce((n, r) => n + r.failed, 0);
    trials.push({ expected, counted, failedWrites, ms: Date.now() - startAt });
    process.stdout.write(`trial ${trial}: ${JSON.stringify(trials.at(-1))}\n`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const lost = trials.reduce((n, t) => n + (t.expected - t.counted), 0);
const result = { processes: PROCESSES, writesPerProcess: WRITES, rowsPerWrite: ROWS, trials, lostRows: lost };
writeBenchResult("lancedb-processes", result);
process.stdout.write(`${JSON.stringify({ lostRows: lost })}\n`);
