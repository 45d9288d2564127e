import { type ChildProcess, spawn } from "node:child_process";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";

/** The live service the SDK tests call (test embedder: no model loading), without the worker. */
export function startSdkTestService(): Promise<TestService> {
  return startTestService({ models: testModels(), worker: false });
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end with its output collected (examples, other languages' tests). */
export function run(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, {
      env: { ...process.env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON lines an example printed, by step. */
export function steps(stdout: string): Map<string, Record<string, unknown>> {
  const byStep = new Map<string, Record<string, unknown>>();
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    byStep.set(String(parsed.step), parsed);
  }
  return byStep;
}
