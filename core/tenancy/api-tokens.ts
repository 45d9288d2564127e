import { Code } from "@connectrpc/connect";
import type { Scope } from "../auth/principal.js";
import { generateApiToken, hashSecret } from "../auth/token-format.js";
import { coreError } from "../errors.js";
import type { Sql, TransactionSql } from "../store/database.js";

/** Spec "Limits": at most 50 active tokens per workspace. */
export const MAX_ACTIVE_TOKENS = 50;

export interface IssuedToken {
  id: string;
  /** Clear text, returned once; only its SHA-256 is stored. */
  token: string;
  name: string;
  scopes: Scope[];
  createdAt: Date;
}

/**
 * Issues an API token for a tenant. The per-workspace cap is checked under a lock on the tenant row
 * so two concurrent creations cannot both pass at 49.
 */
export async function issueApiToken(
  sql: Sql,
  input: { tenantId: string; name: string; scopes: Scope[]; createdBy?: string },
): Promise<IssuedToken> {
  const token = generateApiToken();
  const result = await sql.begin(async (tx: TransactionSql) => {
    await tx`select 1 from tenants where id = ${input.tenantId} for update`;
    const [count] = await tx<{ n: number }[]>`
      select count(*)::int as n from api_tokens where tenant_id = ${input.tenantId} and revoked_at is null`;
    if ((count?.n ?? 0) >= MAX_ACTIVE_TOKENS) {
      throw coreError(
        Code.FailedPrecondition,
        "conflict",
        `a workspace can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`,
      );
    }
    const [row] = await tx<{ id: string; created_at: Date }[]>`
      insert into api_tokens (tenant_id, name, token_hash, scopes, created_by)
      values (${input.tenantId}, ${input.name}, ${hashSecret(token)}, ${input.scopes}, ${input.createdBy ?? null})
      returning id, created_at`;
    return row;
  });
  if (!result) throw new Error("token insert returned no row");
  return { id: result.id, token, name: input.name, scopes: input.scopes, createdAt: result.created_at };
}
