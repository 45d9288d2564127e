import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { PlanName } from "../auth/principal.js";
import { coreError } from "../errors.js";
import type { LimitsOverride } from "../plans/plans.js";
import type { Sql, TransactionSql } from "../store/database.js";

export interface TenantRecord {
  id: string;
  slug: string;
  name: string;
  plan: PlanName;
}

/** Creates a workspace; a taken slug is ALREADY_EXISTS (HTTP 409). */
export async function createTenant(
  sql: Sql | TransactionSql,
  input: { slug: string; name: string; plan: PlanName; limitsOverride?: LimitsOverride },
): Promise<TenantRecord> {
  const rows = await sql<TenantRecord[]>`
    insert into tenants (slug, name, plan, limits_override)
    values (${input.slug}, ${input.name}, ${input.plan}, ${sql.json((input.limitsOverride ?? {}) as never)})
    on conflict (slug) do nothing
    returning id, slug, name, plan`;
  const [row] = rows;
  if (!row)
    throw coreError(Code.AlreadyExists, ErrorReason.CONFLICT, `slug "${input.slug}" is taken`, {
      field: "slug",
    });
  return row;
}

export async function countTenants(sql: Sql | TransactionSql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from tenants`;
  return row?.n ?? 0;
}

export interface TenantSummary extends TenantRecord {
  createdAt: Date;
  activeTokens: number;
  members: number;
}

/** Every workspace with its token and member counts, oldest first (CLI `tenant list`). */
export async function listTenants(sql: Sql | TransactionSql): Promise<TenantSummary[]> {
  const rows = await sql<(TenantRecord & { created_at: Date; active_tokens: number; members: number })[]>`
    select t.id, t.slug, t.name, t.plan, t.created_at,
           (select count(*)::int from api_tokens a where a.tenant_id = t.id and a.revoked_at is null)
             as active_tokens,
           (select count(*)::int from memberships m where m.tenant_id = t.id) as members
    from tenants t order by t.created_at, t.slug`;
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    plan: r.plan,
    createdAt: r.created_at,
    activeTokens: r.active_tokens,
    members: r.members,
  }));
}

export async function findTenantBySlug(
  sql: Sql | TransactionSql,
  slug: string,
): Promise<TenantRecord | undefined> {
  const [row] = await sql<TenantRecord[]>`select id, slug, name, plan from tenants where slug = ${slug}`;
  return row;
}
