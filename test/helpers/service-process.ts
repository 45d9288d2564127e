import { type ChildProcess, spawn } from "node:child_process";
import { waitFor } from "./test-service.js";

/** `npm start` as a child process (node --import tsx apps/all-in-one.ts), with its output collected. */
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
  const { nodeArgs = [], ...ids } = options;
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", entry], {
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
