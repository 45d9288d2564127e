// Builds the built-in embedder inside a worker thread from a plain options object (as the ingest worker
// pool does) and sends back its id and one vector. Node 20 ignores `--import tsx` in workers, so TypeScript
// support is registered here before the factory's module is imported.
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { createBuiltinEmbedder } = await import(workerData.moduleUrl);
const embedder = await createBuiltinEmbedder(workerData.options);
const [vector] = await embedder.embed([workerData.text], workerData.purpose);
parentPort.postMessage({ id: embedder.id, vector });
