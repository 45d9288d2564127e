import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { clientIpOf, tenantCaller } from "../auth/caller.js";
import type { ProviderKeyDeps } from "./byok-guards.js";
import { createProviderKey } from "./create-provider-key.js";
import { deleteProviderKey } from "./delete-provider-key.js";
import { maskKey } from "./key-cipher.js";
import { listProviderKeys } from "./list-provider-keys.js";
import { getModelSelection, type ModelSelection, updateModelSelection } from "./model-selection.js";
import type { ProviderKeyRecord } from "./provider-key-rows.js";
import { testProviderKey } from "./test-provider-key.js";

type ProviderKeyRpcNames =
  | "listProviderKeys"
  | "createProviderKey"
  | "testProviderKey"
  | "deleteProviderKey"
  | "getModelSelection"
  | "updateModelSelection";

function keyMessage(record: ProviderKeyRecord, usedFor: readonly string[]) {
  return {
    id: record.id,
    provider: record.provider,
    label: record.label,
    maskedKey: maskKey(record.last4),
    ...(record.baseUrl === null ? {} : { baseUrl: record.baseUrl }),
    createdAt: timestampFromDate(record.createdAt),
    ...(record.lastTestedAt ? { lastTestedAt: timestampFromDate(record.lastTestedAt) } : {}),
    ...(record.lastTestOk === null ? {} : { lastTestOk: record.lastTestOk }),
    model: record.model,
    dimension: record.dimension,
    ...(record.lastUsedAt ? { lastUsedAt: timestampFromDate(record.lastUsedAt) } : {}),
    ...(record.lastTestError === null ? {} : { lastTestError: record.lastTestError }),
    usedFor: [...usedFor],
  };
}

function selectionMessage(selection: ModelSelection) {
  return {
    ...(selection.embeddingKeyId ? { embeddingKeyId: selection.embeddingKeyId } : {}),
    ...(selection.rerankKeyId ? { rerankKeyId: selection.rerankKeyId } : {}),
    activeEmbeddingSpace: selection.activeEmbeddingSpace,
    ...(selection.reembed ? { reembed: selection.reembed } : {}),
  };
}

/**
 * TenancyService's provider key (BYOK) RPCs: the workspace's keys (listed masked, stored sealed,
 * tested, deleted) and which of them it embeds and reranks with.
 */
export function providerKeyRpcs(
  keyDeps: ProviderKeyDeps,
): Pick<ServiceImpl<typeof TenancyService>, ProviderKeyRpcNames> {
  return {
    async listProviderKeys(_req, ctx) {
      const keys = await listProviderKeys(keyDeps, tenantCaller(ctx));
      return { keys: keys.map(({ record, usedFor }) => keyMessage(record, usedFor)) };
    },

    async createProviderKey(req, ctx) {
      const record = await createProviderKey(keyDeps, tenantCaller(ctx), {
        provider: req.provider,
        label: req.label,
        apiKey: req.apiKey,
        baseUrl: req.baseUrl,
        model: req.model,
        ip: clientIpOf(ctx),
      });
      return { key: keyMessage(record, []) };
    },

    async testProviderKey(req, ctx) {
      const result = await testProviderKey(keyDeps, tenantCaller(ctx), req.id);
      return {
        ok: result.ok,
        latencyMs: result.latencyMs,
        message: result.ok ? `ok: ${result.dimension} dimensions` : (result.error ?? "failed"),
        dimension: result.dimension,
        model: result.model,
        ...(result.error === undefined ? {} : { error: result.error }),
      };
    },

    async deleteProviderKey(req, ctx) {
      await deleteProviderKey(keyDeps, tenantCaller(ctx), { id: req.id, ip: clientIpOf(ctx) });
      return { deleted: true };
    },

    async getModelSelection(_req, ctx) {
      return { selection: selectionMessage(await getModelSelection(keyDeps, tenantCaller(ctx))) };
    },

    async updateModelSelection(req, ctx) {
      const selection = await updateModelSelection(keyDeps, tenantCaller(ctx), {
        embeddingKeyId: req.embeddingKeyId,
        rerankKeyId: req.rerankKeyId,
        ip: clientIpOf(ctx),
      });
      return { selection: selectionMessage(selection) };
    },
  };
}
