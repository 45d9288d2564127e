import { type ChildProcess, spawn } from "node:child_process";
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
}

/** Spawn options: run as another user (root tests that need permissions to bite), extra node flags. */
export interface SpawnOptions {
  readonly uid?: number;
  readonly gid?: number;
  /** Flags for node itself (e.g. --cpu-prof, which Node refuses in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
  /** Run as `npm start` does: scripts/start.mjs and the JavaScript in dist/. */
  readonly compiled?: boolean;
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
  const { nodeArgs = [], compiled = false, ...ids } = options;
  const args = compiled ? ["scripts/start.mjs", entry] : ["--import", "tsx", entry];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
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
  return { child, output: () => out, exited };
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
