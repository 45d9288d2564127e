// Entry point of a pool worker. Node 20 ignores `--import tsx` in a worker's execArgv (checked: the worker
// fails with ERR_UNKNOWN_FILE_EXTENSION), so TypeScript support is registered here, in the worker itself,
// before the worker module (and through it the provider factory's module) is imported. The compiled
// service (dist/, ADR 0280) loads .js modules and never loads tsx.
import { workerData } from "node:worker_threads";

if (workerData.workerEntry.endsWith(".ts")) (await import("tsx/esm/api")).register();
await import(workerData.workerEntry);
