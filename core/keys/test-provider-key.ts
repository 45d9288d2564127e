import type { TenantCaller } from "../auth/caller.js";
import { notFound } from "../errors.js";
import { STORED_VECTOR_DIM } from "../models/embedding-provider.js";
import { createProviderEmbedder, createProviderReranker } from "../models/http/create-provider-embedder.js";
import { PROVIDER_APIS } from "../models/http/provider-apis.js";
import { redactSecret } from "../models/http/redact-secret.js";
import { ProviderError } from "../models/provider-error.js";
import { type ProviderKeyDeps, requireMasterKey } from "./byok-guards.js";
import { providerUrlProblem } from "./check-provider-url.js";
import { findKeyRecord, openKeyRecord, recordKeyTest } from "./provider-key-rows.js";

export interface KeyTestResult {
  readonly ok: boolean;
  readonly latencyMs: number;
  readonly dimension: number;
  readonly model: string;
  readonly error: string | undefined;
}

const PROBE = "Round trip test of a stored provider key.";

/**
 * POST /api/keys/{id}/test: one real embeddings request with the stored key (and one rerank request
 * for providers that rerank), timed. A provider refusal is a result (`ok: false` with the provider's
 * own words), not an error of this call. The native dimension is recorded: selecting the key for
 * embeddings needs a passed test, and more than 1024 dimensions cannot be stored.
 */
export async function testProviderKey(
  deps: ProviderKeyDeps,
  caller: TenantCaller,
  id: string,
): Promise<KeyTestResult> {
  const master = requireMasterKey(deps);
  const loaded = await deps.db.withTenant(caller.tenantId, async (tx) => {
    const record = await findKeyRecord(tx, caller.tenantId, id);
    if (!record) return undefined;
    const apiKey = await openKeyRecord(tx, master, caller.tenantId, id);
    return apiKey === undefined ? undefined : { record, apiKey };
  });
  if (!loaded) throw notFound("provider key");
  const { record, apiKey } = loaded;
  const started = performance.now();
  let outcome: { ok: boolean; dimension: number; error: string | undefined };
  try {
    if (record.baseUrl !== null) {
      const problem = await providerUrlProblem(record.baseUrl, deps.guard);
      if (problem)
        throw new ProviderError(`base URL ${problem}`, { reason: "rejected", provider: record.provider });
    }
    const client = {
      provider: record.provider,
      apiKey,
      ...(record.baseUrl === null ? {} : { baseUrl: record.baseUrl }),
      model: record.model,
      maxRetries: 1,
      timeoutMs: 15_000,
      guard: deps.guard,
    };
    const embedder = await createProviderEmbedder(client);
    const [vector] = await embedder.embed([PROBE], "query");
    const dimension = vector?.length ?? 0;
    if (PROVIDER_APIS[record.provider].rerank !== undefined) {
      const { model: _embeddingModel, ...rerankClient } = client;
      await createProviderReranker(rerankClient).rerank(PROBE, [
        { id: "a", title: "test", text: "A stored provider key." },
        { id: "b", title: "test", text: "Something else entirely." },
      ]);
    }
    outcome =
      dimension > STORED_VECTOR_DIM
        ? {
            ok: false,
            dimension,
            error: `${record.model} answers ${dimension} dimensions; at most ${STORED_VECTOR_DIM} can be stored — choose a model (or server setting) with ${STORED_VECTOR_DIM} or fewer`,
          }
        : { ok: true, dimension, error: undefined };
  } catch (error) {
    const message = error instanceof ProviderError ? error.message : "the round trip failed";
    if (!(error instanceof ProviderError))
      deps.logger.warn({ err: error, keyId: id }, "provider key test failed");
    outcome = { ok: false, dimension: 0, error: redactSecret(message, apiKey) };
  }
  const latencyMs = Math.round(performance.now() - started);
  await deps.db.withTenant(caller.tenantId, (tx) =>
    recordKeyTest(tx, id, {
      ok: outcome.ok,
      error: outcome.error ?? null,
      ...(outcome.ok ? { dimension: outcome.dimension } : {}),
    }),
  );
  return {
    ok: outcome.ok,
    latencyMs,
    dimension: outcome.dimension,
    model: record.model,
    error: outcome.error,
  };
}
