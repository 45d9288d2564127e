import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestService } from "../helpers/test-service.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/crash-during-write.ts", import.meta.url));

/**
 * Runs ingest's write path in a child process and SIGKILLs it at `hook` (no cleanup of any kind runs,
 * as in a power cut). Resolves with the id of the memory the child was writing.
 */
export async function crashDuringWrite(
  service: TestService,
  input: {
    tenantId: string;
    hook: "afterPostgresCommit" | "afterVectorsStored";
    kind?: "entry" | "document";
    title: string;
    content: string;
  },
): Promise<string> {
  const args = JSON.stringify({
    databaseUrl: service.database.url,
    lancedbUri: service.storage.vectors.uri,
    kind: "entry",
    ...input,
  });
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let memoryId: string | undefined;
  return new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString("utf8");
      const match = /HOOK ([0-9a-f-]{36})\n/.exec(output);
      if (match?.[1] && memoryId === undefined) {
        memoryId = match[1];
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (data: Buffer) => {
      output += data.toString("utf8");
    });
    // Only once the process is gone: nothing of the interrupted write can still happen after this.
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL" && memoryId !== undefined) resolve(memoryId);
      else reject(new Error(`child exited (${code ?? signal}) before the hook:\n${output}`));
    });
  });
}
