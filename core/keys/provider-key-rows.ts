import type { ProviderName } from "../models/http/provider-apis.js";
import type { Sql, TransactionSql } from "../store/database.js";
import { type MasterKey, openKey, type SealedKey } from "./key-cipher.js";

/** A provider_keys row without the sealed secret: everything a listing may show. */
export interface ProviderKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly provider: ProviderName;
  readonly label: string;
  readonly last4: string;
  readonly model: string;
  readonly dimension: number;
  readonly baseUrl: string | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly lastTestedAt: Date | null;
  readonly lastTestOk: boolean | null;
  readonly lastTestError: string | null;
}

interface KeyRow {
  id: string;
  tenant_id: string;
  provider: string;
  label: string;
  last4: string;
  model: string;
  dimension: number;
  base_url: string | null;
  created_at: Date;
  last_used_at: Date | null;
  last_tested_at: Date | null;
  last_test_ok: boolean | null;
  last_test_error: string | null;
}

const recordOf = (row: KeyRow): ProviderKeyRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  provider: row.provider as ProviderName,
  label: row.label,
  last4: row.last4,
  model: row.model,
  dimension: row.dimension,
  baseUrl: row.base_url,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  lastTestedAt: row.last_tested_at,
  lastTestOk: row.last_test_ok,
  lastTestError: row.last_test_error,
});

export async function listKeyRecords(tx: TransactionSql, tenantId: string): Promise<ProviderKeyRecord[]> {
  const rows = await tx<KeyRow[]>`
    select id, tenant_id, provider, label, last4, model, dimension, base_url, created_at, last_used_at,
           last_tested_at, last_test_ok, last_test_error
    from provider_keys where tenant_id = ${tenantId} order by created_at desc, id`;
  return rows.map(recordOf);
}

export async function findKeyRecord(
  tx: TransactionSql,
  tenantId: string,
  id: string,
): Promise<ProviderKeyRecord | undefined> {
  const [row] = await tx<KeyRow[]>`
    select id, tenant_id, provider, label, last4, model, dimension, base_url, created_at, last_used_at,
           last_tested_at, last_test_ok, last_test_error
    from provider_keys where tenant_id = ${tenantId} and id = ${id}`;
  return row ? recordOf(row) : undefined;
}

export interface NewKeyRecord {
  readonly tenantId: string;
  readonly provider: ProviderName;
  readonly label: string;
  readonly last4: string;
  readonly model: string;
  readonly dimension: number;
  readonly baseUrl: string | null;
  readonly sealed: SealedKey;
}

export async function insertKeyRecord(tx: TransactionSql, key: NewKeyRecord): Promise<ProviderKeyRecord> {
  const [row] = await tx<KeyRow[]>`
    insert into provider_keys (tenant_id, provider, label, ciphertext, nonce, auth_tag, master_key_id, last4,
                               model, dimension, base_url)
    values (${key.tenantId}, ${key.provider}, ${key.label}, ${key.sealed.ciphertext}, ${key.sealed.nonce},
            ${key.sealed.authTag}, ${key.sealed.masterKeyId}, ${key.last4}, ${key.model}, ${key.dimension},
            ${key.baseUrl})
    returning id, tenant_id, provider, label, last4, model, dimension, base_url, created_at, last_used_at,
              last_tested_at, last_test_ok, last_test_error`;
  if (!row) throw new Error("provider key not inserted");
  return recordOf(row);
}

/** The clear key, opened for one provider call; never stored or logged by the caller. */
export async function openKeyRecord(
  tx: TransactionSql,
  master: MasterKey,
  tenantId: string,
  id: string,
): Promise<string | undefined> {
  const [row] = await tx<{ ciphertext: Uint8Array; nonce: Uint8Array; auth_tag: Uint8Array }[]>`
    select ciphertext, nonce, auth_tag from provider_keys where tenant_id = ${tenantId} and id = ${id}`;
  if (!row) return undefined;
  return openKey(master, tenantId, { ciphertext: row.ciphertext, nonce: row.nonce, authTag: row.auth_tag });
}

/** Records a round trip's outcome (the error text is the provider's, already free of the key). */
export async function recordKeyTest(
  tx: TransactionSql,
  id: string,
  outcome: { ok: boolean; error: string | null; dimension?: number },
): Promise<void> {
  await tx`
    update provider_keys
    set last_tested_at = now(), last_test_ok = ${outcome.ok}, last_test_error = ${outcome.error},
        dimension = coalesce(${outcome.dimension ?? null}::int, dimension)
    where id = ${id}`;
}

/** last_used_at at most about once a minute per key (one cheap UPDATE, outside request transactions). */
export async function touchKey(sql: Sql, id: string): Promise<void> {
  await sql`
    update provider_keys set last_used_at = now()
    where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
}
