// store → recall → update_fact → recall_at_time with the TypeScript SDK.
//
//   MEMORY_URL=http://127.0.0.1:50051 MEMORY_TOKEN=kmt_… npx tsx examples/typescript/walkthrough.ts
//
// MEMORY_URL is core's gRPC port (GRPC_PORT), not the REST port. Outside this repository, import
// from "@memory-service/client/node" instead of the relative path.
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createNodeMemoryClient, MemoryType } from "../../sdk/typescript/src/node.js";

const baseUrl = process.env.MEMORY_URL ?? "http://127.0.0.1:50051";
const token = process.env.MEMORY_TOKEN;
if (!token) {
  process.stderr.write("MEMORY_TOKEN: set it to an API token (kmt_…)\n");
  process.exit(2);
}
const client = createNodeMemoryClient({ baseUrl, token });
const say = (step: string, value: unknown) =>
  process.stdout.write(`${JSON.stringify({ step, ...Object(value) })}\n`);

// 1. store: an append-only memory; indexed (full text + vector) when the call returns.
const { memory } = await client.ingest.storeMemory({
  title: "ACME office",
  content: "The ACME team works from the Berlin office on Torstraße.",
  memoryType: MemoryType.SEMANTIC,
  tags: ["acme", "office"],
});
say("store", { memoryId: memory?.memoryId, status: memory?.status, chunks: memory?.chunksWritten });
const beforeUpdate = new Date();

// 2. recall: hybrid search (full text + vector + graph), re-ranked.
const first = await client.recall.recall({ query: "Where does the ACME team work?", k: 3 });
say("recall", { top: first.hits[0]?.content, memoryId: first.hits[0]?.memoryId });

// 3. update_fact: a new version; the old one stays queryable at the times it was valid.
const updated = await client.graph.updateFact({
  targetId: memory?.memoryId ?? "",
  newTitle: "ACME office",
  newContent: "The ACME team moved to the Hamburg office at the harbour.",
  updateReason: "office move",
});
say("update_fact", { oldMemoryId: updated.oldMemoryId, newMemoryId: updated.newMemoryId });

// 4. recall now (the new version) and at a time before the update (the old one).
const now = await client.recall.recall({ query: "Where does the ACME team work?", k: 3 });
say("recall_now", { top: now.hits[0]?.content, memoryId: now.hits[0]?.memoryId });
const then = await client.recall.recall({
  query: "Where does the ACME team work?",
  k: 3,
  asOf: timestampFromDate(beforeUpdate),
});
const hit = then.hits[0];
say("recall_at_time", {
  asOf: beforeUpdate.toISOString(),
  top: hit?.content,
  memoryId: hit?.memoryId,
  validTo: hit?.validTo ? timestampDate(hit.validTo).toISOString() : null,
});
