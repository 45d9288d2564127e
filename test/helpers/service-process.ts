import { type ChildProcess, spawn } from "node:child_process";
import { childrenOf, stopProcessesOf } from "./data-dir-processes.js";
import { waitFor } from "./test-service.js";

/**
 * The service as a child process, with its output collected: the TypeScript sources under tsx (the
 * tests' default), or with `compiled` exactly as `npm start` runs it (scripts/start.mjs: dist/, built
 * once per test run by test/run-tests.ts, ADR 0280).
 */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** Leads a process group of its own (SpawnOptions.detached). */
  readonly detached: boolean;
}

/** Spawn options: run as another user (root tests that need permissions to bite), extra node flags. */
export interface SpawnOptions {
  readonly uid?: number;
  readonly gid?: number;
  /** Flags for node itself (e.g. --cpu-prof, which Node refuses in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
  /** Run as `npm start` does: scripts/start.mjs and the JavaScript in dist/. */
  readonly compiled?: boolean;
  /** Run `npm start` itself (npm, then node running scripts/start.mjs); all-in-one only. */
  readonly npm?: boolean;
  /** In a process group of its own, led by the spawned process, to signal as a whole. */
  readonly detached?: boolean;
}

export function spawnService(env: Record<string, string>, options: SpawnOptions = {}): ServiceProcess {
  return spawnApp("apps/all-in-one.ts", env, options);
}

/** One of the process entry points (apps/core.ts, apps/gateway.ts, apps/worker.ts …) as a child process. */
export function spawnApp(
  entry: string,
  env: Record<string, string>,
  options: SpawnOptions = {},
): ServiceProcess {
  const { nodeArgs = [], compiled = false, npm = false, detached = false, ...ids } = options;
  if (npm && entry !== "apps/all-in-one.ts")
    throw new Error(`npm start runs apps/all-in-one.ts, not ${entry}`);
  const args = compiled ? ["scripts/start.mjs", entry] : ["--import", "tsx", entry];
  const [command, commandArgs] = npm ? ["npm", ["start"]] : [process.execPath, [...nodeArgs, ...args]];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached,
    ...ids,
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited, detached };
}

/** The node process of the service: the spawned process, or under `npm start` npm's child. */
export async function servicePid(service: ServiceProcess, timeoutMs = 10_000): Promise<number> {
  const pid = service.child.pid;
  if (pid === undefined) throw new Error("the service process did not start");
  if (service.child.spawnfile !== "npm") return pid;
  return waitFor(async () => (await childrenOf(pid))[0], { timeoutMs, what: `the child of npm ${pid}` });
}

/**
 * Teardown of a service process, also after a failed test: SIGTERM (to its group when detached, so
 * npm and node both get it), SIGKILL after `graceMs`; then whatever still runs on `dataDir` — which
 * the service should have stopped — is stopped too, so a test run leaves no postmaster behind.
 */
export async function stopServiceProcess(
  service: ServiceProcess,
  dataDir?: string,
  graceMs = 30_000,
): Promise<void> {
  const { child } = service;
  const signal = (name: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(service.detached ? -child.pid : child.pid, name);
    } catch {
      // Gone meanwhile.
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await service.exited;
  clearTimeout(timer);
  if (dataDir) await stopProcessesOf(dataDir);
}

export async function waitForHealth(baseUrl: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      try {
        return (await fetch(`${baseUrl}/health`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { timeoutMs, intervalMs: 100, what: `${baseUrl}/health` },
  );
}
