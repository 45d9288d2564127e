import { ingestClient } from "../test/ingest/ingest-test-kit.js";

// The importing client of `npm run bench:bulk-ingest`, in a process of its own (as an importer is):
// the service's event loop serves the calls instead of also making them. Reads
// {grpcUrl, token, contents, concurrency} as JSON from stdin, stores content i as "Notiz i" through
// IngestService.StoreMemory from `concurrency` callers, prints {chunks, ms} as one JSON line.

interface Job {
  readonly grpcUrl: string;
  readonly token: string;
  readonly contents: readonly string[];
  readonly concurrency: number;
}

let input = "";
for await (const part of process.stdin) input += String(part);
const job = JSON.parse(input) as Job;
const client = ingestClient({ grpcUrl: job.grpcUrl }, job.token);
let chunks = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    for (let i = next++; i < job.contents.length; i = next++) {
      const { memory } = await client.storeMemory({ title: `Notiz ${i}`, content: job.contents[i] ?? "" });
      chunks += memory?.chunksWritten ?? 0;
    }
  }),
);
process.stdout.write(`${JSON.stringify({ chunks, ms: performance.now() - started })}\n`);
