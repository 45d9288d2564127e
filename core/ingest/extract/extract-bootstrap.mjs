// Entry point of an extraction worker (extract-file.ts). A worker ignores `--import tsx` in its
// execArgv, so under tsx (tests, benches) TypeScript support is registered here before the worker
// module is imported; the compiled service (dist/, ADR 0280) loads .js and never loads tsx.
import { workerData } from "node:worker_threads";

if (workerData.workerEntry.endsWith(".ts")) (await import("tsx/esm/api")).register();
await import(workerData.workerEntry);
