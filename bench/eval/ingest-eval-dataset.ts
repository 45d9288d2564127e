import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import type { EvalDataset, EvalDocument } from "./read-eval-dataset.js";
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
  /**
   * `--via conversations`: a turn's text as a hit shows it (`Speaker: text`) → the documents it stores.
   * A session memory holds many documents; its hit stands for the turn it shows.
   */
  readonly docsOfTurn?: ReadonlyMap<string, readonly string[]>;
}

/** How the corpus goes in: entries (StoreMemories) or conversation turns (StoreConversation). */
export type EvalIngestVia = "entries" | "conversations";

/** Documents per session when the corpus names no sessions. */
const TURNS_PER_SESSION = 20;
/** StoreConversation takes up to 1,000 messages a call; a longer session is appended in parts. */
const MESSAGES_PER_CALL = 1_000;

/** Entries per StoreMemories call of the eval's ingest. */
const EVAL_BATCH = 100;

/** Ingests a set's documents through IngestService.StoreMemories, one tenant per group. */
export async function ingestEvalDataset(
  core: EvalCore,
  dataset: EvalDataset,
  via: EvalIngestVia = "entries",
): Promise<IngestedDataset> {
  if (via === "conversations") return ingestAsConversations(core, dataset);
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

/**
 * The corpus as conversations through IngestService.StoreConversation (what POST /api/v1/conversations
 * calls): one conversation per group, sessions as the corpus names them (`session`), else one per UTC
 * day of `valid_from`, else of 20 documents in corpus order, each document one turn (`speaker`, else "User"; `valid_from` as its time).
 */
async function ingestAsConversations(core: EvalCore, dataset: EvalDataset): Promise<IngestedDataset> {
  const tenants = new Map<string, EvalTenant>();
  const docsOf = new Map<string, string[]>();
  const docsOfTurn = new Map<string, string[]>();
  let chunks = 0;
  const started = performance.now();
  for (const group of [...new Set(dataset.documents.map((d) => d.group))]) {
    const tenant = await core.createTenant(`${dataset.name}-${group || "all"}`);
    tenants.set(group, tenant);
    const sessions = new Map<string, EvalDocument[]>();
    dataset.documents
      .filter((d) => d.group === group)
      .forEach((doc, i) => {
        // A day's turns are a session when the corpus names none but dates them (a chat per day).
        const key =
          doc.session ??
          (doc.validFrom !== undefined
            ? `day-${doc.validFrom.toISOString().slice(0, 10)}`
            : `session-${Math.floor(i / TURNS_PER_SESSION)}`);
        sessions.set(key, [...(sessions.get(key) ?? []), doc]);
      });
    for (const [session, docs] of sessions) {
      let sessionChunks = 0;
      for (let from = 0; from < docs.length; from += MESSAGES_PER_CALL) {
        const part = docs.slice(from, from + MESSAGES_PER_CALL);
        const answer = await core.clients.ingest.storeConversation(
          {
            title: `${dataset.name}-${group || "all"}`,
            sessionId: session,
            messages: part.map((doc) => ({
              ...turnOf(doc),
              ...(doc.validFrom !== undefined ? { at: timestampFromDate(doc.validFrom) } : {}),
            })),
          },
          { headers: tenant.headers },
        );
        // Each version holds the whole session so far: its chunk count is the session's.
        sessionChunks = answer.memory?.chunksWritten ?? 0;
        docsOf.set(
          answer.memory?.memoryId ?? "",
          docs.slice(0, from + part.length).map((d) => d.id),
        );
      }
      chunks += sessionChunks;
      for (const doc of docs) {
        const { speaker, content } = turnOf(doc);
        const turn = `${speaker}: ${content}`;
        docsOfTurn.set(turn, [...(docsOfTurn.get(turn) ?? []), doc.id]);
      }
    }
    await maintainVectorTable(core.storage.vectors, tenant.tenantId, core.models.embedder.id, {
      maxFragments: 1,
      ...(process.env.EVAL_ANN_MIN_ROWS ? { annIndexMinRows: Number(process.env.EVAL_ANN_MIN_ROWS) } : {}),
    });
  }
  return { tenants, docsOf, docsOfTurn, chunks, ms: performance.now() - started };
}

/**
 * A document as a turn: its `speaker` field, else a "Name: " the text starts with (transcript lines,
 * as the time_questions set writes them), else "User".
 */
function turnOf(doc: EvalDocument): { speaker: string; content: string } {
  if (doc.speaker !== undefined) return { speaker: doc.speaker, content: doc.text };
  const line = /^([^:\n]{1,60}): (\S[\s\S]*)$/.exec(doc.text);
  return line?.[1] && line[2]
    ? { speaker: line[1], content: line[2] }
    : { speaker: "User", content: doc.text };
}

/**
 * Hits of session memories → the documents of the turns they show (the hit's chunk, `content`); a
 * piece of a long turn is found inside its turn. Other hits fall back to their memory's documents.
 */
export function toTurnDocumentIds(
  hits: readonly { readonly memoryId: string; readonly content: string }[],
  docsOfTurn: ReadonlyMap<string, readonly string[]>,
  docsOf: ReadonlyMap<string, readonly string[]>,
  relevant: ReadonlySet<string>,
): string[] {
  return hits.map((hit) => {
    let docs = docsOfTurn.get(hit.content);
    if (!docs) {
      for (const [turn, ids] of docsOfTurn) {
        if (turn.includes(hit.content)) {
          docs = ids;
          break;
        }
      }
    }
    const found = docs ?? docsOf.get(hit.memoryId) ?? [hit.memoryId];
    return found.find((d) => relevant.has(d)) ?? found[0] ?? hit.memoryId;
  });
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
