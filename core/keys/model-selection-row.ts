import type { TransactionSql } from "../store/database.js";

/** A workspace's row of tenant_model_selection. */
export interface ModelSelectionRow {
  readonly embeddingKeyId: string | null;
  readonly rerankKeyId: string | null;
  readonly activeSpace: string | null;
  readonly activeKeyId: string | null;
  readonly targetSpace: string | null;
  readonly reembedTotal: number;
  readonly reembedDone: number;
}

export async function readModelSelection(
  tx: TransactionSql,
  tenantId: string,
): Promise<ModelSelectionRow | undefined> {
  const [row] = await tx<
    {
      embedding_key_id: string | null;
      rerank_key_id: string | null;
      active_space: string | null;
      active_key_id: string | null;
      target_space: string | null;
      reembed_total: number;
      reembed_done: number;
    }[]
  >`select embedding_key_id, rerank_key_id, active_space, active_key_id, target_space, reembed_total,
           reembed_done
    from tenant_model_selection where tenant_id = ${tenantId}`;
  if (!row) return undefined;
  return {
    embeddingKeyId: row.embedding_key_id,
    rerankKeyId: row.rerank_key_id,
    activeSpace: row.active_space,
    activeKeyId: row.active_key_id,
    targetSpace: row.target_space,
    reembedTotal: row.reembed_total,
    reembedDone: row.reembed_done,
  };
}
