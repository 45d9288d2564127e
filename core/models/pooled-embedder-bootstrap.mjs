// Entry point of a pool worker. Node 20 ignores `--import tsx` in a worker's execArgv (checked: the worker
// fails with ERR_UNKNOWN_FILE_EXTENSION), so TypeScript support is registered here, in the worker itself,
// before the worker module (and through it the provider factory's module) is imported.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

if (workerData.workerEntry.endsWith(".ts")) register();
await import(workerData.workerEntry);
