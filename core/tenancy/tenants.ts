import { Code } from "@connectrpc/connect";
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
    throw coreError(Code.AlreadyExists, "conflict", `slug "${input.slug}" is taken`, { field: "slug" });
  return row;
}

export async function countTenants(sql: Sql | TransactionSql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from tenants`;
  return row?.n ?? 0;
}
