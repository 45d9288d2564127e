import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { coreError, invalidArgument, notFound } from "../errors.js";
import { REEMBED_TENANT_TASK } from "../memories/index.js";
import { providerSpaceId } from "../models/http/create-provider-embedder.js";
import { PROVIDER_APIS } from "../models/http/provider-apis.js";
import type { TransactionSql } from "../store/database.js";
import { enqueueJob } from "../store/job-queue.js";
import { recordAudit } from "../store/record-audit.js";
import { type ProviderKeyDeps, requireByok } from "./byok-guards.js";
import { findKeyRecord } from "./provider-key-rows.js";
import { type ModelSelectionRow, readModelSelection } from "./tenant-models.js";

export interface ModelSelection {
  readonly embeddingKeyId: string | undefined;
  readonly rerankKeyId: string | undefined;
  readonly activeEmbeddingSpace: string;
  readonly reembed: { targetSpace: string; total: number; done: number } | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function selectionOf(row: ModelSelectionRow | undefined, defaultSpace: string): ModelSelection {
  return {
    embeddingKeyId: row?.embeddingKeyId ?? undefined,
    rerankKeyId: row?.rerankKeyId ?? undefined,
    activeEmbeddingSpace: row?.activeSpace ?? defaultSpace,
    reembed:
      row?.targetSpace != null
        ? { targetSpace: row.targetSpace, total: row.reembedTotal, done: row.reembedDone }
        : undefined,
  };
}

/** GET /api/keys/selection: which keys embed and rerank, the space recall searches, re-embed progress. */
export async function getModelSelection(
  deps: ProviderKeyDeps,
  caller: TenantCaller,
): Promise<ModelSelection> {
  const row = await deps.db.withTenant(caller.tenantId, (tx) => readModelSelection(tx, caller.tenantId));
  return selectionOf(row, deps.models.defaultEmbedder.id);
}

/**
 * PUT /api/keys/selection: chooses the embedding and rerank keys ("" = the service's own). A new
 * embedder opens a new embedding space: the space recall searches stays as it is while a worker job
 * re-embeds every stored version into the new one; when it is complete, recall and ingest switch.
 * Choosing a key needs the plus plan; going back to the service's models does not.
 */
export async function updateModelSelection(
  deps: ProviderKeyDeps,
  caller: TenantCaller,
  input: { embeddingKeyId: string | undefined; rerankKeyId: string | undefined; ip: string | undefined },
): Promise<ModelSelection> {
  const choosesKey = [input.embeddingKeyId, input.rerankKeyId].some((id) => id !== undefined && id !== "");
  if (choosesKey) requireByok(deps, caller);
  for (const [field, id] of [
    ["embedding_key_id", input.embeddingKeyId],
    ["rerank_key_id", input.rerankKeyId],
  ] as const) {
    if (id !== undefined && id !== "" && !UUID.test(id))
      throw invalidArgument(field, `${field}: must be a key id or ""`);
  }
  const tenantId = caller.tenantId;
  const defaultSpace = deps.models.defaultEmbedder.id;
  const row = await deps.db.withTenant(tenantId, async (tx) => {
    // One selection change at a time per workspace.
    await tx`select pg_advisory_xact_lock(hashtextextended(${`model-selection:${tenantId}`}, 0))`;
    const current = await readModelSelection(tx, tenantId);
    let embeddingKeyId = current?.embeddingKeyId ?? null;
    let rerankKeyId = current?.rerankKeyId ?? null;
    let targetSpace = current?.targetSpace ?? null;
    let total = current?.reembedTotal ?? 0;
    const activeSpace = current?.activeSpace ?? defaultSpace;
    let activeKeyId = current?.activeKeyId ?? null;

    if (input.rerankKeyId !== undefined) {
      rerankKeyId = input.rerankKeyId === "" ? null : input.rerankKeyId;
      if (rerankKeyId !== null) {
        const key = await findKeyRecord(tx, tenantId, rerankKeyId);
        if (!key) throw notFound("provider key");
        if (PROVIDER_APIS[key.provider].rerank === undefined) {
          throw invalidArgument(
            "rerank_key_id",
            `rerank_key_id: ${key.provider} offers no rerank API (use cohere, voyage or jina)`,
          );
        }
      }
    }
    if (input.embeddingKeyId !== undefined) {
      embeddingKeyId = input.embeddingKeyId === "" ? null : input.embeddingKeyId;
      const wanted = embeddingKeyId === null ? defaultSpace : await spaceOfKey(tx, tenantId, embeddingKeyId);
      if (wanted === activeSpace) {
        // Same model and length (another key of the same provider): no re-embed, just the key.
        targetSpace = null;
        activeKeyId = embeddingKeyId;
      } else if (wanted !== targetSpace) {
        targetSpace = wanted;
        const [counted] = await tx<{ n: number }[]>`
          select count(*)::int as n from memories m
          where m.tenant_id = ${tenantId} and m.status <> 'failed'
            and exists (select 1 from chunks c where c.tenant_id = m.tenant_id and c.memory_id = m.id)`;
        total = counted?.n ?? 0;
        await enqueueJob(
          tx,
          REEMBED_TENANT_TASK,
          { tenantId },
          { jobKey: `${REEMBED_TENANT_TASK}:${tenantId}` },
        );
      }
    }
    const [saved] = await tx<{ tenant_id: string }[]>`
      insert into tenant_model_selection as s (tenant_id, embedding_key_id, rerank_key_id, active_key_id,
                                               target_space, reembed_total, reembed_done)
      values (${tenantId}, ${embeddingKeyId}, ${rerankKeyId}, ${activeKeyId}, ${targetSpace}, ${total}, 0)
      on conflict (tenant_id) do update
      set embedding_key_id = excluded.embedding_key_id, rerank_key_id = excluded.rerank_key_id,
          active_key_id = excluded.active_key_id,
          target_space = excluded.target_space, reembed_total = excluded.reembed_total,
          reembed_done = case when s.target_space is not distinct from excluded.target_space
                              then s.reembed_done else 0 end,
          updated_at = now()
      returning tenant_id`;
    if (!saved) throw new Error("model selection not saved");
    await recordAudit(tx, {
      tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "model_selection.updated",
      target: tenantId,
      ip: input.ip,
      details: { embeddingKeyId, rerankKeyId, targetSpace },
    });
    return readModelSelection(tx, tenantId);
  });
  // Committed: recall in this process reads the new selection from its next request on.
  deps.models.forgetTenant(tenantId);
  return selectionOf(row, defaultSpace);
}

/** The space a key embeds into; it must have passed a round trip test (which measured its dimension). */
async function spaceOfKey(tx: TransactionSql, tenantId: string, keyId: string): Promise<string> {
  const key = await findKeyRecord(tx, tenantId, keyId);
  if (!key) throw notFound("provider key");
  if (key.lastTestOk !== true || key.dimension < 1) {
    throw coreError(
      Code.FailedPrecondition,
      ErrorReason.CONFLICT,
      "test the key first (POST /api/keys/{id}/test): only a key that passed a round trip can embed",
    );
  }
  return providerSpaceId(key.provider, key.model, key.dimension, key.baseUrl ?? undefined);
}
