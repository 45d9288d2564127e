import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** Writes bench/results/<name>.json with the machine it ran on, and prints where it went. */
export function writeBenchResult(name: string, result: Record<string, unknown>): string {
  const dir = new URL("./results/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${name}.json`, dir);
  const body = {
    name,
    measuredAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    ...result,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  process.stdout.write(`wrote ${file.pathname}\n`);
  return file.pathname;
}
