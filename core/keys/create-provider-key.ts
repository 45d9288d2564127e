import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { coreError, invalidArgument } from "../errors.js";
import { isProviderName, PROVIDER_APIS } from "../models/http/provider-apis.js";
import { recordAudit } from "../store/record-audit.js";
import { type ProviderKeyDeps, requireByok, requireMasterKey } from "./byok-guards.js";
import { providerUrlProblem } from "./check-provider-url.js";
import { lastFour, sealKey } from "./key-cipher.js";
import { insertKeyRecord, type ProviderKeyRecord } from "./provider-key-rows.js";

/** Stored keys per workspace. */
export const MAX_PROVIDER_KEYS = 20;

export interface NewProviderKey {
  readonly provider: string;
  readonly label: string;
  readonly apiKey: string;
  readonly baseUrl: string | undefined;
  readonly model: string | undefined;
  readonly ip: string | undefined;
}

/**
 * POST /api/keys: plus plan and higher (402), MASTER_KEY configured (503). The key is sealed with
 * AES-256-GCM (tenant id as associated data) and only its last four characters are kept readable;
 * the answer is the masked record. The audit entry names provider and label, never the key.
 */
export async function createProviderKey(
  deps: ProviderKeyDeps,
  caller: TenantCaller,
  input: NewProviderKey,
): Promise<ProviderKeyRecord> {
  requireByok(deps, caller);
  const master = requireMasterKey(deps);
  const provider = input.provider;
  if (!isProviderName(provider)) throw invalidArgument("provider", "provider: unknown provider");
  const api = PROVIDER_APIS[provider];
  const apiKey = input.apiKey.trim();
  if (apiKey.length < 8 || /\s/.test(apiKey)) {
    throw invalidArgument("api_key", "api_key: must be the provider's key, at least 8 characters, no spaces");
  }
  const baseUrl = input.baseUrl?.trim().replace(/\/+$/, "") || undefined;
  if (baseUrl === undefined && api.defaultBaseUrl === undefined) {
    throw invalidArgument(
      "base_url",
      "base_url: required for openai-compatible servers (e.g. http://host:11434/v1)",
    );
  }
  if (baseUrl !== undefined) {
    const problem = await providerUrlProblem(baseUrl, deps.guard);
    if (problem) throw invalidArgument("base_url", `base_url: ${problem}`);
  }
  const model = input.model?.trim() || api.embed.defaultModel;
  if (model === undefined) {
    throw invalidArgument("model", "model: required for openai-compatible servers (the served model's name)");
  }
  const sealed = sealKey(master, caller.tenantId, apiKey);
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`
      select count(*)::int as count from provider_keys where tenant_id = ${caller.tenantId}`;
    if (count >= MAX_PROVIDER_KEYS) {
      throw coreError(
        Code.FailedPrecondition,
        ErrorReason.CONFLICT,
        `a workspace can store at most ${MAX_PROVIDER_KEYS} provider keys; delete one first`,
      );
    }
    const record = await insertKeyRecord(tx, {
      tenantId: caller.tenantId,
      provider,
      label: input.label.trim(),
      last4: lastFour(apiKey),
      model,
      dimension: api.embed.knownDim(model) ?? 0,
      baseUrl: baseUrl ?? null,
      sealed,
    });
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "provider_key.created",
      target: record.id,
      ip: input.ip,
      details: { provider: record.provider, label: record.label, model: record.model },
    });
    return record;
  });
}
