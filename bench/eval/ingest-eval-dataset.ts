import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import type { EvalDataset } from "./read-eval-dataset.js";
import type { EvalCore } from "./start-eval-core.js";

export interface EvalTenant {
  readonly tenantId: string;
  readonly headers: Record<string, string>;
}

export interface IngestedDataset {
  /** Query group → the tenant holding that group's documents. */
  readonly tenants: ReadonlyMap<string, EvalTenant>;
  /** Memory id → the evaluation documents it stores (identical texts are one memory). */
  readonly docsOf: ReadonlyMap<string, readonly string[]>;
  readonly chunks: number;
  readonly ms: number;
}

/** Entries per StoreMemories call of the eval's ingest. */
const EVAL_BATCH = 100;

/** Ingests a set's documents through IngestService.StoreMemories, one tenant per group. */
export async function ingestEvalDataset(core: EvalCore, dataset: EvalDataset): Promise<IngestedDataset> {
  const tenants = new Map<string, EvalTenant>();
  const docsOf = new Map<string, string[]>();
  let chunks = 0;
  const started = performance.now();
  for (const group of [...new Set(dataset.documents.map((d) => d.group))]) {
    const tenant = await core.createTenant(`${dataset.name}-${group || "all"}`);
    tenants.set(group, tenant);
    const docs = dataset.documents.filter((d) => d.group === group);
    // In batches of IngestService.StoreMemories, two at a time, as an importing program sends them —
    // after a first write alone, which creates the tenant's vector table.
    const store = async (batch: typeof docs) => {
      const { results } = await core.clients.ingest.storeMemories(
        {
          memories: batch.map((doc) => ({
            content: doc.text,
            ...(dataset.titlesFair && doc.title ? { title: doc.title } : {}),
          })),
        },
        { headers: tenant.headers },
      );
      results.forEach(({ outcome }, n) => {
        if (outcome.case !== "memory") throw new Error(`${dataset.name}: ${outcome.value?.message}`);
        const doc = batch[n] as (typeof docs)[number];
        chunks += outcome.value.chunksWritten;
        // Identical texts are one memory (idempotent store); every such document counts as relevant.
        docsOf.set(outcome.value.memoryId, [...(docsOf.get(outcome.value.memoryId) ?? []), doc.id]);
        if (doc.validFrom !== undefined) timed.push({ memoryId: outcome.value.memoryId, at: doc.validFrom });
      });
    };
    const timed: { memoryId: string; at: Date }[] = [];
    await store(docs.slice(0, 1));
    let next = 1;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < docs.length) {
          const from = next;
          next = Math.min(docs.length, from + EVAL_BATCH);
          await store(docs.slice(from, next));
        }
      }),
    );
    // Turns of a conversation are valid from their message time, as the conversations route stores them
    // (time_questions set); the eval's ingest path has no such field, so it is set afterwards.
    if (timed.length > 0)
      await core.storage.db.withTenant(tenant.tenantId, async (tx) => {
        for (const t of timed) {
          await tx`update memories set valid_from = ${t.at} where id = ${t.memoryId}`;
          // A hit's time is its chunk's, as for a conversation turn.
          await tx`update chunks set valid_from = ${t.at} where memory_id = ${t.memoryId}`;
        }
      });
    // The worker maintains the table as the writes go (start-eval-core runs it); one more pass now, as
    // its next sweep would, so every set is measured on a settled table whatever the timing.
    await maintainVectorTable(core.storage.vectors, tenant.tenantId, core.models.embedder.id, {
      maxFragments: 1,
      ...(process.env.EVAL_ANN_MIN_ROWS ? { annIndexMinRows: Number(process.env.EVAL_ANN_MIN_ROWS) } : {}),
    });
  }
  return { tenants, docsOf, chunks, ms: performance.now() - started };
}

/** Memory ids → evaluation document ids, preferring a relevant document where a memory stores several. */
export function toDocumentIds(
  memoryIds: readonly string[],
  docsOf: ReadonlyMap<string, readonly string[]>,
  relevant: ReadonlySet<string>,
): string[] {
  return memoryIds.map((id) => {
    const docs = docsOf.get(id) ?? [id];
    return docs.find((d) => relevant.has(d)) ?? docs[0] ?? id;
  });
}
