import type { Database } from "../../core/store/database.js";
import { listTenants } from "../../core/tenancy/tenants.js";

/** `tenant list`: every workspace with plan, active tokens and members, as an aligned table. */
export async function tenantList(db: Database): Promise<string> {
  const tenants = await listTenants(db.sql);
  if (tenants.length === 0) return "no workspaces yet\n";
  const rows = [
    ["SLUG", "PLAN", "TOKENS", "MEMBERS", "CREATED", "ID", "NAME"],
    ...tenants.map((t) => [
      t.slug,
      t.plan,
      String(t.activeTokens),
      String(t.members),
      t.createdAt.toISOString().slice(0, 10),
      t.id,
      t.name,
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0))) ?? [];
  return `${rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
