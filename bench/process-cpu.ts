import { readdir, readFile } from "node:fs/promises";

/**
 * CPU time from /proc, for benches that must tell "the machine was slower this hour" from "the code
 * got dearer": req/s on a shared 2-core machine moved by more than 2× between hours at the same code,
 * CPU milliseconds per request much less. Linux only; empty figures elsewhere.
 */

const TICK_MS = 10; // USER_HZ is 100 on every Linux this runs on.

/** utime + stime in ms of one /proc stat line (fields 14 and 15, after the parenthesised name). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU ms per thread name of a process (LanceDB's and libuv's threads share names, summed). */
export async function threadCpuMs(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tasks) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => "");
    if (stat === "") continue;
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // The main thread carries the process's name; worker threads are named by what runs them.
    const key = tid === String(pid) ? "main" : name.replace(/[-\d]+$/, "");
    byName.set(key, (byName.get(key) ?? 0) + statCpuMs(stat));
  }
  return byName;
}

/** CPU ms of every process named `postgres` (the server and its backends). */
export async function postgresCpuMs(): Promise<number> {
  let total = 0;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (stat.includes("(postgres)")) total += statCpuMs(stat);
  }
  return total;
}

/** Busy and total ms of the whole machine (all cores) from /proc/stat; steal counted as busy. */
export async function machineCpuMs(): Promise<{ busy: number; total: number }> {
  const line = (await readFile("/proc/stat", "utf8").catch(() => "")).split("\n")[0] ?? "";
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
  return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
}

export interface CpuSnapshot {
  readonly threads: Map<string, number>;
  readonly postgres: number;
  readonly machine: { busy: number; total: number };
}

export async function cpuSnapshot(pid: number): Promise<CpuSnapshot> {
  return { threads: await threadCpuMs(pid), postgres: await postgresCpuMs(), machine: await machineCpuMs() };
}

/**
 * CPU ms per request between two snapshots: the service (by thread name and in all), PostgreSQL, and
 * how busy the machine was (share of all cores, steal included).
 */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number) {
  const per = (ms: number) => Math.round((ms / Math.max(1, requests)) * 100) / 100;
  const threads: Record<string, number> = {};
  let service = 0;
  for (const [name, ms] of after.threads) {
    const spent = ms - (before.threads.get(name) ?? 0);
    service += spent;
    if (spent > 0) threads[name] = per(spent);
  }
  const machineTotal = after.machine.total - before.machine.total;
  return {
    serviceMs: per(service),
    postgresMs: per(after.postgres - before.postgres),
    threadsMs: threads,
    machineBusyShare:
      machineTotal > 0
        ? Math.round(((after.machine.busy - before.machine.busy) / machineTotal) * 1000) / 1000
        : 0,
  };
}

/**
 * Milliseconds this process takes for a fixed piece of single-threaded work (SHA-256 of 64 MiB and a
 * loop of string hashing): written beside req/s so two runs on a machine whose speed varies by the
 * hour can be compared. Lower is a faster machine.
 */
export async function calibrationMs(): Promise<number> {
  const { createHash } = await import("node:crypto");
  const data = Buffer.alloc(64 * 2 ** 20, 7);
  const started = performance.now();
  createHash("sha256").update(data).digest();
  let h = 0;
  for (let i = 0; i < 3_000_000; i++) {
    const word = `wort${i % 9973}`;
    for (let j = 0; j < word.length; j++) h = (Math.imul(h, 31) + word.charCodeAt(j)) | 0;
  }
  return Math.round((performance.now() - started + (h === 42 ? 1 : 0)) * 10) / 10;
}
