import { Code } from "@connectrpc/connect";
import test from "ava";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import { wordHashEmbedder } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { expectFailure, ingestClient, readChunks, readMemory } from "./ingest-test-kit.js";

// Issue #23: concurrent writes of one tenant share one PostgreSQL transaction (decide-writes-together.ts)
// — and each still gets exactly what a transaction of its own would give it: its own rows, chunks,
// event and vectors, its own quota answer, its own failure.

/** The test embedder, failing for any text that contains FEHLSCHLAG (one writer's provider error). */
function sometimesFailing(): EmbeddingProvider {
  const inner = wordHashEmbedder();
  return {
    ...inner,
    async embed(texts, purpose) {
      // A little later than at once, so concurrent writers gather in one batch.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (texts.some((text) => text.includes("FEHLSCHLAG"))) throw new Error("embedder refused the text");
      return inner.embed(texts, purpose);
    },
  };
}

let service: TestService;

test.before(async () => {
  service = await startTestService({
    models: { embedder: sometimesFailing(), reranker: undefined, close: async () => undefined },
  });
});

test.after.always(async () => {
  await service?.stop();
});

/** A text of `paragraphs` paragraphs, each naming `marker`, long enough for several chunks. */
function textOf(marker: string, paragraphs: number): string {
  return Array.from(
    { length: paragraphs },
    (_, p) =>
      `${marker} Absatz ${p}: ${Array.from({ length: 260 }, (_, w) => `wort${(w * 7 + p) % 97}`).join(" ")}.`,
  ).join("\n\n");
}

test("concurrent stores share transactions; each memory has its own chunks, validity, event and vectors", async (t) => {
  const tenant = await service.createTenant({ limitsOverride: { requestsPerMinutePerToken: 100_000 } });
  const client = ingestClient(service, tenant.token);
  const count = 24;
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.storeMemory({ title: `Notiz ${i}`, content: textOf(`MARKE${i}X`, 1 + (i % 4)) }),
    ),
  );
  const sql = service.storage.db.sql;
  // The BM25 feed (migration 0230) records the transaction of every chunk insert: fewer transactions
  // than memories means they shared.
  const [shared] = await sql<{ transactions: number }[]>`
    select count(distinct xid)::int as transactions from bm25_chunk_feed where tenant_id = ${tenant.tenantId}`;
  t.true(
    (shared?.transactions ?? count) < count,
    `${shared?.transactions} transactions for ${count} memories`,
  );

  let multiChunk = 0;
  for (const [i, result] of results.entries()) {
    const memoryId = result.memory?.memoryId ?? "";
    const memory = await readMemory(service, memoryId);
    t.is(memory?.title, `Notiz ${i}`);
    t.is(memory?.status, "indexed");
    const chunks = await readChunks(service, memoryId);
    t.is(chunks.length, memory?.chunks_written ?? -1);
    t.is(chunks.length, result.memory?.chunksWritten ?? -1);
    if (chunks.length > 1) multiChunk++;
    t.deepEqual(
      chunks.map((c) => c.ordinal),
      chunks.map((_, n) => n),
    );
    for (const chunk of chunks) {
      t.true(memory?.content.includes(chunk.content), "a chunk of another memory");
      t.is(chunk.valid_from.getTime(), memory?.valid_from.getTime() ?? -1);
      t.true(chunk.vector_stored);
    }
    const events = await sql`
      select 1 from outbox where tenant_id = ${tenant.tenantId} and event = 'memory.created'
        and payload->>'documentId' = ${memoryId} and (payload->>'chunksWritten')::int = ${chunks.length}`;
    t.is(events.length, 1);
  }
  t.true(multiChunk > 0, "some memories span several chunks");
  const vectors = await service.storage.vectors.count(tenant.tenantId, "test-wordhash-64");
  const [chunkRows] = await sql<{ n: number }[]>`
    select count(*)::int as n from chunks where tenant_id = ${tenant.tenantId}`;
  t.is(vectors, chunkRows?.n ?? -1);
});

test("one writer's embedding failure fails that memory only; the others of its batch are indexed", async (t) => {
  const tenant = await service.createTenant({ limitsOverride: { requestsPerMinutePerToken: 100_000 } });
  const client = ingestClient(service, tenant.token);
  const calls = Array.from({ length: 12 }, (_, i) =>
    client.storeMemory({
      title: `Eintrag ${i}`,
      content: i === 5 ? "Dieser Text löst einen FEHLSCHLAG aus." : `Eintrag ${i} über den Garten.`,
    }),
  );
  const settled = await Promise.allSettled(calls);
  const failure = await expectFailure(t, calls[5] as Promise<unknown>, Code.Internal);
  t.is(failure.reason, "ingest_failed");
  t.is(settled.filter((s) => s.status === "fulfilled").length, 11);
  const rows = await service.storage.db.sql<{ title: string; status: string; chunks: number }[]>`
    select m.title, m.status, (select count(*)::int from chunks c where c.memory_id = m.id) as chunks
    from memories m where m.tenant_id = ${tenant.tenantId} order by m.title`;
  t.is(rows.length, 12);
  for (const row of rows) {
    if (row.title === "Eintrag 5") t.like(row, { status: "failed", chunks: 0 });
    else t.like(row, { status: "indexed", chunks: 1 });
  }
});

test("concurrent stores at a memory limit: exactly the room left is written, every other one gets the plan gate", async (t) => {
  const tenant = await service.createTenant({
    plan: "free",
    limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit: 7 },
  });
  const client = ingestClient(service, tenant.token);
  await client.storeMemory({ title: "Vorher", content: "Schon gespeichert." });
  const calls = Array.from({ length: 14 }, (_, i) =>
    client.storeMemory({ title: `Notiz ${i}`, content: `Notiz ${i} zum Einkauf.` }),
  );
  const settled = await Promise.allSettled(calls);
  const written = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  t.is(written.length, 6);
  t.deepEqual(
    written.map((w) => Number(w.memory?.quota?.memoriesUsed)).sort((a, b) => a - b),
    [2, 3, 4, 5, 6, 7],
    "each write is told the count with itself",
  );
  for (const [i, s] of settled.entries()) {
    if (s.status === "fulfilled") continue;
    const failure = await expectFailure(t, calls[i] as Promise<unknown>, Code.FailedPrecondition);
    t.is(failure.reason, "plan_upgrade_required");
    t.is(failure.planGate?.used, 7n);
  }
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId} and valid_to is null`;
  t.is(row?.n, 7);
});
