import type { Database } from "../../core/store/database.js";
import { recordAudit } from "../../core/store/record-audit.js";
import { revokeApiToken } from "../../core/tenancy/api-tokens.js";
import { CliError } from "../cli-error.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `token revoke --id <uuid>`: running services stop accepting the token within their 1 s lookup
 * cache lifetime (the revoking process of the API forgets it at once; this is another process).
 */
export async function tokenRevoke(db: Database, options: { id?: string | undefined }): Promise<string> {
  const id = options.id ?? "";
  if (!UUID.test(id)) throw new CliError("--id: the token id (a UUID, see GET /api/tokens) is required", 2);
  const [owner] = await db.sql<{ tenant_id: string; slug: string }[]>`
    select t.tenant_id, tn.slug from api_tokens t join tenants tn on tn.id = t.tenant_id where t.id = ${id}`;
  if (!owner) throw new CliError(`no token with id ${id}`);
  const outcome = await db.withTenant(owner.tenant_id, async (tx) => {
    const result = await revokeApiToken(tx, owner.tenant_id, id);
    if (result === "revoked") {
      await recordAudit(tx, {
        tenantId: owner.tenant_id,
        action: "token.revoked",
        target: id,
        details: { via: "cli" },
      });
    }
    return result;
  });
  return outcome === "already"
    ? `token ${id} of "${owner.slug}" was already revoked\n`
    : `revoked token ${id} of "${owner.slug}"; running services refuse it within 1 s\n`;
}
