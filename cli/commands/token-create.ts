import type { Scope } from "../../core/auth/principal.js";
import type { Database } from "../../core/store/database.js";
import { recordAudit } from "../../core/store/record-audit.js";
import { insertApiToken } from "../../core/tenancy/api-tokens.js";
import { scopeEnum } from "../../core/tenancy/proto-enums.js";
import { findTenantBySlug } from "../../core/tenancy/tenants.js";
import { CreateTokenRequestSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { CliError } from "../cli-error.js";
import { validateRequest } from "../validate-request.js";

const SCOPES: readonly Scope[] = ["read", "write", "admin"];

/**
 * `token create --tenant x --name n --scopes read,write`: prints the clear token once on stdout
 * (only its SHA-256 is stored). The 50-token cap applies; the api-plan gate does not (the operator
 * decides).
 */
export async function tokenCreate(
  db: Database,
  options: { tenant?: string | undefined; name?: string | undefined; scopes?: string | undefined },
): Promise<{ stdout: string; stderr: string }> {
  if (!options.tenant) throw new CliError("--tenant: the workspace slug is required", 2);
  const scopes = (options.scopes ?? "read").split(",").map((s) => s.trim()) as Scope[];
  const unknown = scopes.filter((s) => !SCOPES.includes(s));
  if (unknown.length > 0)
    throw new CliError(`--scopes: unknown scope ${unknown.join(", ")}; use ${SCOPES.join(", ")}`);
  const name = (options.name ?? "cli token").trim();
  validateRequest(CreateTokenRequestSchema, { name, scopes: scopes.map(scopeEnum) });
  const tenant = await findTenantBySlug(db.sql, options.tenant);
  if (!tenant) throw new CliError(`no workspace with slug "${options.tenant}" (see: tenant list)`);
  const issued = await db.withTenant(tenant.id, async (tx) => {
    const token = await insertApiToken(tx, { tenantId: tenant.id, name, scopes });
    await recordAudit(tx, {
      tenantId: tenant.id,
      action: "token.created",
      target: token.id,
      details: { name, scopes, via: "cli" },
    });
    return token;
  });
  return {
    stdout: `${issued.token}\n`,
    stderr: `created token ${issued.id} "${name}" (${scopes.join(", ")}) for "${tenant.slug}"; it is shown once, store it now\n`,
  };
}
