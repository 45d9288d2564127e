import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type StoreConversationRequest,
  type StoreConversationResponse,
  StoreConversationResponseSchema,
} from "../../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../../auth/caller.js";
import { contentRequired, invalidArgument, tooLarge } from "../../errors.js";
import {
  deleteEdgePair,
  findRelationType,
  lockTenantGraph,
  MAX_MEMORY_BYTES,
  MAX_UPLOAD_CHARACTERS,
  readQuota,
  type WriteNewMemoryDeps,
  writeEdgePair,
  writeNewMemory,
} from "../../memories/index.js";
import type { TransactionSql } from "../../store/database.js";
import { storedMemoryResult } from "../stored-memory-result.js";
import { renderSession, type SessionTurn, turnKey } from "./render-session.js";
import { serializeByKey } from "./serialize-by-key.js";
import { currentVersionOf, neighbourSessions, readSession, recordTurns } from "./session-rows.js";

/** Title of a session memory without a conversation title. */
const UNTITLED = "Conversation";
const inOrder = serializeByKey();

/**
 * StoreConversation (docs/ingest.md "Conversations", ADR 0484): a session is one episodic memory, its
 * content the transcript, one chunk per turn valid from the turn's time. A write renders every turn
 * of the session (stored + new) and goes through the one write path as a document upserted by its
 * title, so the new version replaces the old one only once indexed, joins its lineage and takes its
 * links over; the same content is `unchanged`. The turns are recorded after the version, so a write
 * that fails records nothing, and a repeat of one whose bookkeeping was lost writes no new version.
 */
export function storeConversation(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: StoreConversationRequest,
): Promise<StoreConversationResponse> {
  const messages = checkMessages(request);
  const sessionId = request.sessionId ?? randomUUID();
  return inOrder(`${caller.tenantId}\u0000${sessionId}`, () =>
    storeSession(deps, caller, { sessionId, title: request.title, messages }),
  );
}

interface Message {
  readonly speaker: string;
  readonly content: string;
  readonly at: Date | undefined;
}

function checkMessages(request: StoreConversationRequest): Message[] {
  return request.messages.map((m, i) => {
    if (!/\S/u.test(m.speaker)) throw invalidArgument(`messages[${i}].speaker`, "must not be blank");
    if (!/\S/u.test(m.content)) throw contentRequired(`messages[${i}].content`);
    if (Buffer.byteLength(m.content, "utf8") > MAX_MEMORY_BYTES) {
      throw tooLarge(
        `messages[${i}].content`,
        "100 KB",
        "a message holds at most 100 KB; split it into several",
      );
    }
    return { speaker: m.speaker.trim(), content: m.content, at: m.at ? timestampDate(m.at) : undefined };
  });
}

async function storeSession(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  input: { sessionId: string; title: string | undefined; messages: readonly Message[] },
): Promise<StoreConversationResponse> {
  const { tenantId } = caller;
  const { sessionId } = input;
  const stored = await deps.db.withTenant(tenantId, (tx) => readSession(tx, tenantId, sessionId));
  const conversation = stored ? stored.session.conversation : (input.title ?? null);
  if (stored && input.title !== undefined && input.title !== stored.session.conversation) {
    throw invalidArgument(
      "title",
      `session ${sessionId} belongs to ${stored.session.conversation === null ? "no conversation" : `the conversation "${stored.session.conversation}"`}; send that title or none`,
    );
  }
  const before = stored?.turns ?? [];
  const fresh = newTurns(before, input.messages, new Date());
  const turns = [...before, ...fresh];
  const rendered = renderSession(turns);
  if (rendered.content.length > MAX_UPLOAD_CHARACTERS) {
    throw tooLarge(
      "messages",
      "1,000,000 characters per session",
      `the session would hold ${rendered.content.length} characters; continue the conversation in a new session`,
    );
  }
  const title = `${conversation ?? UNTITLED} · ${sessionId}`;

  if (stored && fresh.length === 0) {
    const current = await deps.db.withTenant(tenantId, async (tx) => ({
      version: await currentVersionOf(tx, tenantId, stored.session.lineageId),
      quota: await readQuota(tx, tenantId, caller.limits),
      neighbours: await neighbourMemories(tx, tenantId, sessionId, conversation),
    }));
    if (current.version) {
      return create(StoreConversationResponseSchema, {
        sessionId,
        memory: storedMemoryResult({
          memoryId: current.version.id,
          title: current.version.title,
          status: current.version.status,
          chunksWritten: current.version.chunksWritten,
          embeddingProvider: deps.embedder.id,
          quota: current.quota,
          unchanged: true,
        }),
        turnsAdded: 0,
        turnsSkipped: input.messages.length,
        turnsTotal: turns.length,
        ...neighbourFields(current.neighbours),
      });
    }
  }

  const outcome = await writeNewMemory(deps, {
    caller,
    kind: "document",
    memoryType: "episodic",
    title,
    content: rendered.content,
    source: `conversation:${sessionId}`,
    metadata: {
      conversation: { sessionId, ...(conversation === null ? {} : { title: conversation }) },
    },
    validFrom: rendered.startedAt,
    segments: rendered.segments,
    upsertByTitle: true,
    dedupe: true,
    mode: "inline",
  });

  const neighbours = await deps.db.withTenant(tenantId, async (tx) => {
    const { created } = await recordTurns(tx, {
      tenantId,
      sessionId,
      conversation,
      memoryId: outcome.memoryId,
      startedAt: rendered.startedAt,
      from: before.length,
      turns: fresh,
    });
    const found = await neighbourMemories(tx, tenantId, sessionId, conversation);
    if (created) await linkIntoConversation(tx, tenantId, outcome.memoryId, found);
    return found;
  });
  return create(StoreConversationResponseSchema, {
    sessionId,
    memory: storedMemoryResult({
      ...outcome,
      title,
      embeddingProvider: deps.embedder.id,
      unchanged: outcome.unchanged && fresh.length === 0,
    }),
    turnsAdded: fresh.length,
    turnsSkipped: input.messages.length - fresh.length,
    turnsTotal: turns.length,
    ...neighbourFields(neighbours),
  });
}

/**
 * The messages not stored yet: each stored turn absorbs one message with its key (a multiset, so a
 * repeated "ok" is kept when it is said once more than stored). Messages without a time are dated now.
 */
function newTurns(stored: readonly SessionTurn[], messages: readonly Message[], now: Date): SessionTurn[] {
  const left = new Map<string, number>();
  for (const turn of stored) left.set(turn.key, (left.get(turn.key) ?? 0) + 1);
  const fresh: SessionTurn[] = [];
  for (const m of messages) {
    const key = turnKey(m.speaker, m.content, m.at);
    const n = left.get(key) ?? 0;
    if (n > 0) {
      left.set(key, n - 1);
      continue;
    }
    fresh.push({ speaker: m.speaker, content: m.content, saidAt: m.at ?? now, key });
  }
  return fresh;
}

interface NeighbourMemories {
  readonly previous: string | undefined;
  readonly next: string | undefined;
}

async function neighbourMemories(
  tx: TransactionSql,
  tenantId: string,
  sessionId: string,
  conversation: string | null,
): Promise<NeighbourMemories> {
  if (conversation === null) return { previous: undefined, next: undefined };
  const lineages = await neighbourSessions(tx, tenantId, sessionId, conversation);
  const memoryOf = async (lineage: string | undefined) =>
    lineage === undefined ? undefined : (await currentVersionOf(tx, tenantId, lineage))?.id;
  return { previous: await memoryOf(lineages.previous), next: await memoryOf(lineages.next) };
}

const PRECEDES = findRelationType("PRECEDES");

/**
 * A new session joins its conversation's chain: previous PRECEDES it PRECEDES next, and the link
 * previous → next it now stands between goes. Under the graph lock, as link and unlink take it.
 */
async function linkIntoConversation(
  tx: TransactionSql,
  tenantId: string,
  memoryId: string,
  neighbours: NeighbourMemories,
): Promise<void> {
  if (!PRECEDES || (neighbours.previous === undefined && neighbours.next === undefined)) return;
  await lockTenantGraph(tx, tenantId, "shared");
  const type = PRECEDES;
  if (neighbours.previous !== undefined && neighbours.next !== undefined) {
    await deleteEdgePair(tx, { tenantId, fromId: neighbours.previous, toId: neighbours.next, type });
  }
  if (neighbours.previous !== undefined) {
    await writeEdgePair(tx, { tenantId, fromId: neighbours.previous, toId: memoryId, type });
  }
  if (neighbours.next !== undefined) {
    await writeEdgePair(tx, { tenantId, fromId: memoryId, toId: neighbours.next, type });
  }
}

function neighbourFields(n: NeighbourMemories) {
  return {
    ...(n.previous !== undefined ? { previousSessionMemoryId: n.previous } : {}),
    ...(n.next !== undefined ? { nextSessionMemoryId: n.next } : {}),
  };
}
