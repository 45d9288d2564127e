import { invalidArgument, notFound, permissionDenied } from "../errors.js";
import { enqueuePurgeErased } from "../memories/index.js";
import type { Database, TransactionSql } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";

export interface EraseWorkspaceResult {
  readonly tenantId: string;
  /** Rows removed, all tables together. */
  readonly rows: number;
  readonly vectorTables: number;
}

/** Who asked: the owner's session (checked here, under the tenant's row lock), or the operator CLI. */
export type ErasureActor = { readonly userId: string } | "operator";

/**
 * Erases a whole workspace (docs/erasure.md): in one PostgreSQL transaction every row of the tenant
 * in every table that has a tenant_id column (found in the catalog, so a table added later is covered
 * without a change here), in foreign-key order, then the tenant row; its queued jobs; members who
 * belong to no other workspace lose their user row, sessions and sign-in links; what remains is one
 * row in workspace_erasures (tenant id, time, actor, counts). After the commit the tenant's LanceDB
 * tables are dropped (directory and files); the purge job enqueued in the transaction drops any a
 * crash left behind, so the operation is safe to retry at every point.
 */
export async function eraseWorkspace(
  deps: {
    readonly db: Database;
    readonly vectors: VectorStore;
    readonly purgeDelayMs: number;
    readonly forgetTenant?: ((tenantId: string) => void) | undefined;
    readonly cancelSubscription?: ((tenantId: string) => Promise<boolean>) | undefined;
  },
  input: { readonly tenantId: string; readonly confirmSlug: string; readonly actor: ErasureActor },
): Promise<EraseWorkspaceResult> {
  const rows = await deps.db.sql.begin(async (tx) => {
    const [tenant] = await tx<
      { slug: string }[]
    >`select slug from tenants where id = ${input.tenantId} for update`;
    if (!tenant) throw notFound("workspace");
    if (input.actor !== "operator") {
      const [member] = await tx<{ role: string }[]>`
        select role from memberships where tenant_id = ${input.tenantId} and user_id = ${input.actor.userId}`;
      if (member?.role !== "owner")
        throw permissionDenied("only the workspace owner can erase the workspace");
    }
    if (input.confirmSlug !== tenant.slug) {
      throw invalidArgument("confirm_slug", "confirm_slug must repeat the workspace's slug exactly");
    }
    // Inside the transaction, after the checks: if the provider refuses, nothing is erased.
    await deps.cancelSubscription?.(input.tenantId);
    return eraseTenantRows(tx, input.tenantId, input.actor, deps.purgeDelayMs);
  });
  // The tokens' rows are gone; cached lookups in this process must not outlive them by a second.
  deps.forgetTenant?.(input.tenantId);
  const spaces = await deps.vectors.spaces(input.tenantId);
  for (const space of spaces) await deps.vectors.dropSpace(input.tenantId, space);
  return { tenantId: input.tenantId, rows, vectorTables: spaces.length };
}

async function eraseTenantRows(
  tx: TransactionSql,
  tenantId: string,
  actor: ErasureActor,
  purgeDelayMs: number,
): Promise<number> {
  const members = await tx<
    { user_id: string }[]
  >`select user_id from memberships where tenant_id = ${tenantId}`;
  const [jobs] = await tx<{ n: number }[]>`select remove_tenant_jobs(${tenantId}, null) as n`;
  let rows = jobs?.n ?? 0;
  const tables = await tenantTablesInDeleteOrder(tx);
  // Deleting chunks makes the BM25 triggers append statistics deltas for the tenant, possibly to a
  // table already emptied: passes repeat until one removes nothing (the second pass is the last).
  for (let pass = 0; pass < 5; pass++) {
    let removedInPass = 0;
    for (const table of tables) {
      const removed = await tx.unsafe(`delete from ${quoteIdent(table)} where tenant_id = $1`, [tenantId]);
      removedInPass += removed.count;
    }
    rows += removedInPass;
    if (removedInPass === 0) break;
  }
  // Members without another workspace: their account is this workspace's personal data.
  const memberIds = tx.array(members.map((m) => m.user_id));
  const orphans = await tx<{ id: string; email: string }[]>`
    select u.id, u.email from users u
    where u.id = any(${memberIds}::uuid[])
      and not exists (select 1 from memberships m where m.user_id = u.id)`;
  const orphanIds = tx.array(orphans.map((u) => u.id));
  rows += (await tx`delete from sessions where user_id = any(${orphanIds}::uuid[])`).count;
  rows += (
    await tx`delete from magic_links where lower(email) = any(${tx.array(orphans.map((u) => u.email.toLowerCase()))}::text[])`
  ).count;
  rows += (await tx`delete from users where id = any(${orphanIds}::uuid[])`).count;
  rows += (await tx`delete from tenants where id = ${tenantId}`).count;
  await tx`
    insert into workspace_erasures (tenant_id, actor, details)
    values (${tenantId}, ${actor === "operator" ? "operator" : `user:${actor.userId}`},
            ${tx.json({ rows, members: members.length, accountsRemoved: orphans.length })})`;
  // Drops vector tables a crash after the commit would leave behind; VACUUMs the emptied tables.
  await enqueuePurgeErased(tx, tenantId, purgeDelayMs);
  return rows;
}

/**
 * Every table of the public schema with a tenant_id column, ordered so a table is emptied before the
 * tables its foreign keys point to (self-references, like edges.inverse_of, are deferred or removed
 * together). workspace_erasures keeps the erasure record and is never emptied.
 */
async function tenantTablesInDeleteOrder(tx: TransactionSql): Promise<string[]> {
  const tables = (
    await tx<{ name: string }[]>`
      select c.relname as name
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attname = 'tenant_id'
        and not a.attisdropped and c.relname <> 'workspace_erasures' and not c.relispartition
      order by c.relname`
  ).map((r) => r.name);
  const references = await tx<{ from: string; to: string }[]>`
    select src.relname as from, dst.relname as to
    from pg_constraint k
    join pg_class src on src.oid = k.conrelid
    join pg_class dst on dst.oid = k.confrelid
    join pg_namespace n on n.oid = src.relnamespace
    where k.contype = 'f' and n.nspname = 'public' and src.oid <> dst.oid`;
  const ordered: string[] = [];
  const remaining = new Set(tables);
  while (remaining.size > 0) {
    // A table may go once no remaining table references it.
    const free = [...remaining].filter(
      (t) => !references.some((r) => r.to === t && r.from !== t && remaining.has(r.from)),
    );
    if (free.length === 0) throw new Error(`foreign-key cycle among ${[...remaining].join(", ")}`);
    for (const t of free) {
      ordered.push(t);
      remaining.delete(t);
    }
  }
  return ordered;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
