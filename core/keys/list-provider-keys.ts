import type { TenantCaller } from "../auth/caller.js";
import type { Database } from "../store/database.js";
import { listKeyRecords, type ProviderKeyRecord } from "./provider-key-rows.js";
import { readModelSelection } from "./tenant-models.js";

export type KeyUse = "embeddings" | "reranking";

/** GET /api/keys: the workspace's keys, newest first, masked, with what each is used for. */
export async function listProviderKeys(
  deps: { db: Database },
  caller: TenantCaller,
): Promise<{ record: ProviderKeyRecord; usedFor: KeyUse[] }[]> {
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const [records, selection] = await Promise.all([
      listKeyRecords(tx, caller.tenantId),
      readModelSelection(tx, caller.tenantId),
    ]);
    return records.map((record) => ({
      record,
      usedFor: [
        ...(selection?.embeddingKeyId === record.id ? (["embeddings"] as const) : []),
        ...(selection?.rerankKeyId === record.id ? (["reranking"] as const) : []),
      ],
    }));
  });
}
