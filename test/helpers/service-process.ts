import { type ChildProcess, spawn } from "node:child_process";
import { waitFor } from "./test-service.js";

/** `npm start` as a child process (node --import tsx apps/all-in-one.ts), with its output collected. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

export function spawnService(env: Record<string, string>): ServiceProcess {
  return spawnApp("apps/all-in-one.ts", env);
}

/** One of the process entry points (apps/core.ts, apps/gateway.ts, apps/worker.ts …) as a child process. */
export function spawnApp(entry: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
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
