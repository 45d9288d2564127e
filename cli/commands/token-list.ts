import type { Database } from "../../core/store/database.js";
import { listActiveTokens } from "../../core/tenancy/api-tokens.js";
import { findTenantBySlug } from "../../core/tenancy/tenants.js";
import { CliError } from "../cli-error.js";

/** `token list --tenant x`: active tokens (never their secret), newest first. */
export async function tokenList(db: Database, options: { tenant?: string | undefined }): Promise<string> {
  if (!options.tenant) throw new CliError("--tenant: the workspace slug is required", 2);
  const tenant = await findTenantBySlug(db.sql, options.tenant);
  if (!tenant) throw new CliError(`no workspace with slug "${options.tenant}" (see: tenant list)`);
  const tokens = await db.withTenant(tenant.id, (tx) => listActiveTokens(tx, tenant.id));
  if (tokens.length === 0) return `no active tokens in "${tenant.slug}"\n`;
  return tokens
    .map(
      (t) =>
        `${t.id}  ${t.scopes.join(",").padEnd(16)}  created ${t.createdAt.toISOString()}  last used ${
          t.lastUsedAt?.toISOString() ?? "never"
        }  ${t.name}\n`,
    )
    .join("");
}
