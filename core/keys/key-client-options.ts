import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import type { ProviderClientOptions } from "../models/http/create-provider-embedder.js";
import { ProviderError } from "../models/provider-error.js";
import type { TransactionSql } from "../store/database.js";
import type { MasterKey } from "./key-cipher.js";
import { findKeyRecord, openKeyRecord } from "./provider-key-rows.js";

/**
 * The provider client options of one stored key, its secret opened with the master key (the clear
 * key lives only as long as the client built from them). A deleted key or a missing MASTER_KEY is a
 * ProviderError, as the provider's own refusal would be.
 */
export async function clientOptionsOfKey(
  tx: TransactionSql,
  tenantId: string,
  keyId: string,
  options: {
    readonly masterKey: MasterKey | undefined;
    readonly clientOptions?: Pick<ProviderClientOptions, "timeoutMs" | "maxRetries" | "retryBaseMs">;
    readonly guard?: OutboundGuard;
    /** Called when the client has used the key (its last-used time). */
    readonly onUsed: () => void;
  },
): Promise<ProviderClientOptions> {
  const record = await findKeyRecord(tx, tenantId, keyId);
  if (!record) {
    throw new ProviderError("the selected provider key no longer exists", {
      reason: "rejected",
      provider: "byok",
    });
  }
  if (options.masterKey === undefined) {
    throw new ProviderError(
      `${record.provider}: MASTER_KEY is not configured, so the stored key cannot be opened`,
      {
        reason: "unauthorized",
        provider: record.provider,
      },
    );
  }
  const apiKey = await openKeyRecord(tx, options.masterKey, tenantId, keyId);
  if (apiKey === undefined) throw new Error("provider key vanished while reading it");
  return {
    provider: record.provider,
    apiKey,
    ...(record.baseUrl === null ? {} : { baseUrl: record.baseUrl }),
    ...(record.model === "" ? {} : { model: record.model }),
    ...(record.dimension > 0 ? { dim: record.dimension } : {}),
    ...options.clientOptions,
    ...(options.guard ? { guard: options.guard } : {}),
    onUsed: options.onUsed,
  };
}
