import type { TransactionSql } from "../../store/database.js";
import type { SessionTurn } from "./render-session.js";

export interface SessionRow {
  readonly conversation: string | null;
  readonly lineageId: string;
  readonly startedAt: Date;
}

/** A session and its turns in order; undefined when the session does not exist yet. */
export async function readSession(
  tx: TransactionSql,
  tenantId: string,
  sessionId: string,
): Promise<{ session: SessionRow; turns: SessionTurn[] } | undefined> {
  const [session] = await tx<{ conversation: string | null; lineage_id: string; started_at: Date }[]>`
    select conversation, lineage_id, started_at from conversation_sessions
    where tenant_id = ${tenantId} and session_id = ${sessionId}`;
  if (!session) return undefined;
  const turns = await tx<{ speaker: string; content: string; said_at: Date; turn_sha256: Buffer }[]>`
    select speaker, content, said_at, turn_sha256 from conversation_turns
    where tenant_id = ${tenantId} and session_id = ${sessionId} order by ordinal`;
  return {
    session: {
      conversation: session.conversation,
      lineageId: session.lineage_id,
      startedAt: session.started_at,
    },
    turns: turns.map((t) => ({
      speaker: t.speaker,
      content: t.content,
      saidAt: t.said_at,
      key: t.turn_sha256.toString("hex"),
    })),
  };
}

/** The current version of a lineage that did not fail, if any. */
export async function currentVersionOf(
  tx: TransactionSql,
  tenantId: string,
  lineageId: string,
): Promise<{ id: string; title: string; status: "queued" | "indexed"; chunksWritten: number } | undefined> {
  const [row] = await tx<
    { id: string; title: string; status: "queued" | "indexed"; chunks_written: number }[]
  >`
    select id, title, status, chunks_written from memories
    where tenant_id = ${tenantId} and lineage_id = ${lineageId} and valid_to is null and status <> 'failed'
    order by recorded_at desc limit 1`;
  return row && { id: row.id, title: row.title, status: row.status, chunksWritten: row.chunks_written };
}

/**
 * Records a session's new turns after its memory version was written: the session row (created on
 * its first write, with the lineage the version ended in) and the turns after the `from` stored ones.
 * A turn already there (a write whose bookkeeping was repeated) is left as it is.
 */
export async function recordTurns(
  tx: TransactionSql,
  input: {
    readonly tenantId: string;
    readonly sessionId: string;
    readonly conversation: string | null;
    readonly memoryId: string;
    readonly startedAt: Date;
    readonly from: number;
    readonly turns: readonly SessionTurn[];
  },
): Promise<{ created: boolean }> {
  const { tenantId, sessionId } = input;
  const created = await tx`
    insert into conversation_sessions (tenant_id, session_id, conversation, lineage_id, started_at)
    select ${tenantId}, ${sessionId}, ${input.conversation}, m.lineage_id, ${input.startedAt}
    from memories m where m.tenant_id = ${tenantId} and m.id = ${input.memoryId}
    on conflict (tenant_id, session_id) do update
      set lineage_id = excluded.lineage_id, started_at = least(conversation_sessions.started_at, excluded.started_at)
    returning (xmax = 0) as inserted`;
  if (input.turns.length > 0) {
    await tx`
      insert into conversation_turns (tenant_id, session_id, ordinal, speaker, content, said_at, turn_sha256)
      select ${tenantId}, ${sessionId}, t.ordinal, t.speaker, t.content, t.said_at, decode(t.sha, 'hex')
      from unnest(${tx.array(input.turns.map((_, i) => input.from + i))}::int[],
                  ${tx.array(input.turns.map((t) => t.speaker))}::text[],
                  ${tx.array(input.turns.map((t) => t.content))}::text[],
                  ${tx.array(input.turns.map((t) => t.saidAt.toISOString()))}::timestamptz[],
                  ${tx.array(input.turns.map((t) => t.key))}::text[])
           as t(ordinal, speaker, content, said_at, sha)
      on conflict do nothing`;
  }
  return { created: (created[0] as { inserted?: boolean } | undefined)?.inserted === true };
}

/**
 * The sessions before and after this one in its conversation, by the time of their first message
 * (the creation order breaks ties): their lineages.
 */
export async function neighbourSessions(
  tx: TransactionSql,
  tenantId: string,
  sessionId: string,
  conversation: string,
): Promise<{ previous: string | undefined; next: string | undefined }> {
  const rows = await tx<{ lineage_id: string; side: "previous" | "next" }[]>`
    with me as (
      select started_at, created_at from conversation_sessions
      where tenant_id = ${tenantId} and session_id = ${sessionId}
    )
    (select s.lineage_id, 'previous' as side from conversation_sessions s, me
     where s.tenant_id = ${tenantId} and s.conversation = ${conversation} and s.session_id <> ${sessionId}
       and (s.started_at, s.created_at) < (me.started_at, me.created_at)
     order by s.started_at desc, s.created_at desc limit 1)
    union all
    (select s.lineage_id, 'next' as side from conversation_sessions s, me
     where s.tenant_id = ${tenantId} and s.conversation = ${conversation} and s.session_id <> ${sessionId}
       and (s.started_at, s.created_at) > (me.started_at, me.created_at)
     order by s.started_at, s.created_at limit 1)`;
  return {
    previous: rows.find((r) => r.side === "previous")?.lineage_id,
    next: rows.find((r) => r.side === "next")?.lineage_id,
  };
}
