import type { Database } from "../store/database.js";
import type { ChunkVectorRow } from "../vectors/chunk-vector-schema.js";
import { createGroupCommit, type Settled } from "../vectors/group-commit.js";
import {
  type Decision,
  decideAlone,
  newVersion,
  type PendingWrite,
  type WriteNewMemoryDeps,
} from "./decide-memory-write.js";
import { findIdenticalMemories, lockTitles } from "./find-identical-memory.js";
import { vectorRowsOf } from "./finish-indexing.js";
import { countMemories, lockTenantQuota, memoryLimitReached } from "./quota.js";
import { ignoreMaintenanceError, requestVectorMaintenance } from "./schedule-maintenance.js";
import { type WrittenVersion, writeMemoryVersions } from "./write-memory-version.js";

/**
 * Writes that may share a transaction with others of their tenant: indexed inline (chunks and a running
 * embedding), without the upsert-by-title swap (it has its own steps after the commit), and checked
 * for identical content — so that when a shared commit's outcome is unknown (the connection lost while
 * committing) and the members try alone, a member that was committed after all finds itself instead
 * of being written twice.
 */
export function canWriteTogether(pending: PendingWrite): boolean {
  const { request } = pending;
  return (
    pending.chunks !== undefined &&
    pending.embedding !== undefined &&
    !request.upsertByTitle &&
    request.dedupe
  );
}

interface Member {
  readonly deps: WriteNewMemoryDeps;
  readonly pending: PendingWrite;
}

/** A member whose title an earlier member of its batch writes: it joins the next batch. */
class JoinNextBatch extends Error {}

/**
 * decideAlone's transaction, shared by the concurrent writes of one tenant (issue #23: a bulk load paid
 * a transaction — begin, tenant binding, lock, check, inserts, commit and its WAL flush — per memory).
 * Its members' vectors go into LanceDB before it commits, so their rows commit indexed (ADR 0330).
 * Each member keeps its own outcome: unchanged, written, or its own quota error. One member's failure
 * that aborts the transaction (its embedding, a database error) sends every member through a
 * transaction of its own, so the failure reaches its writer only. While one batch of a tenant commits,
 * the next gathers (group-commit.ts).
 */
export async function decideTogether(deps: WriteNewMemoryDeps, pending: PendingWrite): Promise<Decision> {
  const write = batchesOf(deps.db);
  for (;;) {
    try {
      return await write(pending.request.caller.tenantId, { deps, pending }, 1);
    } catch (error) {
      if (!(error instanceof JoinNextBatch)) throw error;
    }
  }
}

const batches = new WeakMap<
  Database,
  (tenantId: string, member: Member, rows: number) => Promise<Decision>
>();

function batchesOf(db: Database): (tenantId: string, member: Member, rows: number) => Promise<Decision> {
  let write = batches.get(db);
  if (!write) {
    write = createGroupCommit<Member, Decision>(writeBatch, { lingerMs: 0, maxRows: 64 });
    batches.set(db, write);
  }
  return write;
}

const titleKey = ({ pending: { request } }: Member) => `${request.kind}:${request.title}`;

async function writeBatch(tenantId: string, members: readonly Member[]): Promise<Settled<Decision>[]> {
  const outcomes: Settled<Decision>[] = members.map(() => ({ ok: false, error: new JoinNextBatch() }));
  // One writer per title and batch: a second writer of a title must see the first one's row (spec
  // rule 1: identical content is not written twice), so it waits for the next batch.
  const byTitle = new Map<string, number>();
  members.forEach((member, i) => {
    const key = titleKey(member);
    if (!byTitle.has(key)) byTitle.set(key, i);
  });
  const chosen = [...byTitle.values()];
  const settle = async (run: () => Promise<Decision>): Promise<Settled<Decision>> =>
    run().then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  const alone = async (i: number) => {
    const member = members[i] as Member;
    outcomes[i] = await settle(() => decideAlone(member.deps, member.pending));
  };
  if (chosen.length === 1) {
    await alone(chosen[0] as number);
    return outcomes;
  }
  try {
    const decided = await decideInOneTransaction(
      tenantId,
      chosen.map((i) => members[i] as Member),
    );
    chosen.forEach((i, n) => {
      outcomes[i] = decided[n] as Settled<Decision>;
    });
  } catch {
    // Rolled back: nothing of the batch was written. Each member tries alone, with its own outcome.
    await Promise.all(chosen.map(alone));
  }
  return outcomes;
}

async function decideInOneTransaction(
  tenantId: string,
  members: readonly Member[],
): Promise<Settled<Decision>[]> {
  const { db, vectors } = (members[0] as Member).deps;
  // A tenant's first write creates its vector table under a lock that takes a pool connection. Inside
  // the transaction that was a deadlock: its title and quota locks held, every other pool connection
  // waiting on them (test/ingest/quota.test.ts hung under load; pg_stat_activity: 8 of 10 connections
  // on the advisory locks, the 2 holders idle in transaction at the LanceDB upsert).
  for (const space of new Set(members.map((m) => m.deps.embedder.id)))
    await vectors.ensureTable(tenantId, space);
  const stored: { space: string; version: number; rows: number }[] = [];
  const decided = await db.withTenant(tenantId, async (tx) => {
    // Every member's title lock, then their identical checks: two statements in one round trip.
    const requests = members.map((m) => m.pending.request);
    const deduped = requests.filter((r) => r.dedupe);
    const [, found] = await Promise.all([
      lockTitles(tx, tenantId, requests),
      findIdenticalMemories(tx, tenantId, deduped),
    ]);
    const identical = requests.map((r) => (r.dedupe ? found[deduped.indexOf(r)] : undefined));
    const limited = members.some((m) => m.pending.request.caller.limits.memoryLimit !== undefined);
    // Titles first, then the quota: the order decideAlone takes them in.
    if (limited) await lockTenantQuota(tx, tenantId);
    let used = limited || identical.some(Boolean) ? await countMemories(tx, tenantId) : 0;

    const outcomes: Settled<Decision>[] = [];
    const writing: { n: number; used: number | undefined }[] = [];
    members.forEach(({ deps, pending }, n) => {
      const same = identical[n];
      if (same) {
        outcomes[n] = { ok: true, value: { kind: "unchanged", ...same, used } };
        return;
      }
      const { caller } = pending.request;
      const limit = caller.limits.memoryLimit;
      if (limit !== undefined && used >= limit) {
        outcomes[n] = { ok: false, error: memoryLimitReached(caller, limit, used, deps.upgradeUrl) };
        return;
      }
      writing.push({ n, used: limit === undefined ? undefined : ++used });
    });
    const written = await writeMemoryVersions(
      tx,
      writing.map(({ n }) => {
        const { deps, pending } = members[n] as Member;
        return newVersion(deps, pending.request, pending.chunks ?? []);
      }),
      { vectorsStored: true },
    );
    const rowsBySpace = new Map<string, ChunkVectorRow[]>();
    for (const [i, { n, used: after }] of writing.entries()) {
      const { deps, pending } = members[n] as Member;
      // An embedding failure rejects here and rolls the whole batch back (writeBatch retries alone).
      const vectors = await (pending.embedding as Promise<Float32Array[]>);
      const version = written[i] as WrittenVersion;
      const rows = rowsBySpace.get(deps.embedder.id) ?? [];
      rowsBySpace.set(deps.embedder.id, rows);
      rows.push(...vectorRowsOf(version, vectors, pending.chunks));
      outcomes[n] = { ok: true, value: { kind: "indexed", written: version, used: after } };
    }
    // The vectors before the commit, so the rows commit indexed and no update follows (issue #23: the
    // indexed mark's statement was a quarter of a bulk load's PostgreSQL time, and its row versions
    // vacuum's work). A failure here rolls the batch back and its members go alone (finishIndexing);
    // a crash or a lost COMMIT after it leaves vectors without chunks, which reconcile removes.
    for (const [space, rows] of rowsBySpace) {
      const { version } = await vectors.upsert(tenantId, space, rows);
      stored.push({ space, version, rows: rows.length });
    }
    return outcomes;
  });
  // As finishIndexing asks after each write: maintenance when the table is due (never the write's failure).
  for (const { space, version, rows } of stored) {
    await requestVectorMaintenance(db.sql, tenantId, space, version, rows).catch(ignoreMaintenanceError);
  }
  return decided;
}
