import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
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

export interface TokenInput {
  tenantId: string;
  name: string;
  scopes: Scope[];
  createdBy?: string | undefined;
}

/**
 * Inserts an API token inside the caller's transaction. The per-workspace cap is checked under a
 * lock on the tenant row, so two concurrent creations cannot both pass at 49.
 */
export async function insertApiToken(tx: TransactionSql, input: TokenInput): Promise<IssuedToken> {
  const token = generateApiToken();
  await tx`select 1 from tenants where id = ${input.tenantId} for update`;
  const [count] = await tx<{ n: number }[]>`
    select count(*)::int as n from api_tokens where tenant_id = ${input.tenantId} and revoked_at is null`;
  if ((count?.n ?? 0) >= MAX_ACTIVE_TOKENS) {
    throw coreError(
      Code.FailedPrecondition,
      ErrorReason.CONFLICT,
      `a workspace can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`,
      { metadata: { limit: String(MAX_ACTIVE_TOKENS) } },
    );
  }
  const [row] = await tx<{ id: string; created_at: Date }[]>`
    insert into api_tokens (tenant_id, name, token_hash, scopes, created_by)
    values (${input.tenantId}, ${input.name}, ${hashSecret(token)}, ${input.scopes}, ${input.createdBy ?? null})
    returning id, created_at`;
  if (!row) throw new Error("token insert returned no row");
  return { id: row.id, token, name: input.name, scopes: input.scopes, createdAt: row.created_at };
}

/** Issues an API token in a transaction of its own (CLI, bootstrap, tests). */
export async function issueApiToken(sql: Sql, input: TokenInput): Promise<IssuedToken> {
  return (await sql.begin((tx) => insertApiToken(tx, input))) as IssuedToken;
}

export interface ActiveToken {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** "oauth": a connection an MCP client obtained through the consent page (name: the client's). */
  kind: "api" | "oauth";
  oauthClientId: string | null;
}

/** Active tokens of a tenant, newest first. */
export async function listActiveTokens(sql: Sql | TransactionSql, tenantId: string): Promise<ActiveToken[]> {
  const rows = await sql<
    {
      id: string;
      name: string;
      scopes: Scope[];
      created_at: Date;
      last_used_at: Date | null;
      kind: "api" | "oauth";
      oauth_client_id: string | null;
    }[]
  >`
    select id, name, scopes, created_at, last_used_at, kind, oauth_client_id from api_tokens
    where tenant_id = ${tenantId} and revoked_at is null
    order by created_at desc, id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    scopes: r.scopes,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    kind: r.kind,
    oauthClientId: r.oauth_client_id,
  }));
}

/**
 * Revokes a token of `tenantId`. "revoked" the first time, "already" when it was revoked before
 * (revoking is idempotent), "unknown" when the tenant has no such token: another tenant's token is
 * indistinguishable from a missing one.
 */
export async function revokeApiToken(
  sql: Sql | TransactionSql,
  tenantId: string,
  tokenId: string,
): Promise<"revoked" | "already" | "unknown"> {
  const [row] = await sql<{ was_active: boolean }[]>`
    with target as (
      select id, revoked_at is null as was_active from api_tokens
      where id = ${tokenId} and tenant_id = ${tenantId}
      for update
    )
    update api_tokens t set revoked_at = coalesce(t.revoked_at, now())
    from target where t.id = target.id
    returning target.was_active`;
  if (!row) return "unknown";
  return row.was_active ? "revoked" : "already";
}
