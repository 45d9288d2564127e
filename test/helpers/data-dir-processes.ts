import { readdir, readFile } from "node:fs/promises";
import { waitFor } from "./test-service.js";

// The processes a service leaves on its DATA_DIR: the embedded postmaster (`postgres -D <dir>/pg`)
// and its watchdog name the directory on their command lines (issue 51). A test that starts a service
// in embedded mode asserts there are none once the service is gone, and its teardown stops any.

async function commandLines(): Promise<Map<number, string>> {
  const lines = new Map<number, string>();
  for (const name of await readdir("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    // A process may end between the listing and the read.
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline) lines.set(pid, cmdline.replaceAll("\0", " ").trim());
  }
  return lines;
}

/** The processes whose command line names `dir`, with their command lines. */
export async function processesOf(dir: string): Promise<{ pid: number; cmdline: string }[]> {
  return [...(await commandLines())]
    .filter(([, cmdline]) => cmdline.includes(dir))
    .map(([pid, cmdline]) => ({ pid, cmdline }));
}

/** The direct children of `pid` (e.g. the node process `npm start` runs). */
export async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const child of (await commandLines()).keys()) {
    const stat = await readFile(`/proc/${child}/stat`, "utf8").catch(() => "");
    // Field 4 (ppid) follows the command name, which is in parentheses and may contain spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === pid) children.push(child);
  }
  return children;
}

/** Waits until no process names `dir`; fails with their command lines after `timeoutMs`. */
export async function waitForNoProcessesOf(dir: string, timeoutMs: number): Promise<void> {
  let left: { pid: number; cmdline: string }[] = [];
  try {
    await waitFor(
      async () => {
        left = await processesOf(dir);
        return left.length === 0 ? true : undefined;
      },
      { timeoutMs, intervalMs: 100, what: `no process of ${dir}` },
    );
  } catch {
    throw new Error(`still running on ${dir}: ${left.map((p) => `${p.pid} ${p.cmdline}`).join("; ")}`);
  }
}

/**
 * Teardown: stops whatever still runs on `dir` — SIGQUIT (a postmaster's immediate shutdown, which
 * ends its backends too), SIGKILL after 5 s — and returns the pids it found.
 */
export async function stopProcessesOf(dir: string): Promise<number[]> {
  const found = await processesOf(dir);
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  };
  for (const { pid } of found) signal(pid, "SIGQUIT");
  await waitForNoProcessesOf(dir, 5_000).catch(async () => {
    for (const { pid } of await processesOf(dir)) signal(pid, "SIGKILL");
  });
  return found.map((p) => p.pid);
}
