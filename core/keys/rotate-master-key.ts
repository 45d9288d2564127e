import type { Sql } from "../store/database.js";
import { type MasterKey, openKey, sealKey } from "./key-cipher.js";

export interface RotationReport {
  readonly rotated: number;
  /** Already sealed under the new key (an earlier, interrupted run). */
  readonly alreadyNew: number;
}

/**
 * Re-seals every stored provider key under a new master key: each row is opened with the old key and
 * sealed with the new one (fresh nonce, same tenant AAD) in one UPDATE guarded by the old key's id,
 * so the command can be interrupted and run again. Rows sealed by neither key make it fail loudly
 * before anything is written for them. Runs as the table owner (all tenants), never logs a key.
 */
export async function rotateMasterKey(sql: Sql, from: MasterKey, to: MasterKey): Promise<RotationReport> {
  const rows = await sql<
    {
      id: string;
      tenant_id: string;
      ciphertext: Buffer;
      nonce: Buffer;
      auth_tag: Buffer;
      master_key_id: string;
    }[]
  >`select id, tenant_id, ciphertext, nonce, auth_tag, master_key_id from provider_keys order by id`;
  const foreign = rows.filter((r) => r.master_key_id !== from.id && r.master_key_id !== to.id);
  if (foreign.length > 0) {
    throw new Error(
      `${foreign.length} provider key(s) are sealed by a master key that is neither MASTER_KEY nor the new key`,
    );
  }
  let rotated = 0;
  for (const row of rows) {
    if (row.master_key_id === to.id) continue;
    const clear = openKey(from, row.tenant_id, {
      ciphertext: row.ciphertext,
      nonce: row.nonce,
      authTag: row.auth_tag,
    });
    const sealed = sealKey(to, row.tenant_id, clear);
    const updated = await sql`
      update provider_keys
      set ciphertext = ${sealed.ciphertext}, nonce = ${sealed.nonce}, auth_tag = ${sealed.authTag},
          master_key_id = ${sealed.masterKeyId}
      where id = ${row.id} and master_key_id = ${from.id}`;
    rotated += updated.count;
  }
  return { rotated, alreadyNew: rows.length - rotated };
}
