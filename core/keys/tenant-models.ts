import type { Logger } from "../../config/logger.js";
import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import {
  createProviderEmbedder,
  createProviderReranker,
  type ProviderClientOptions,
} from "../models/http/create-provider-embedder.js";
import { ProviderError } from "../models/provider-error.js";
import type { Reranker } from "../models/reranker.js";
import type { Database, TransactionSql } from "../store/database.js";
import type { MasterKey } from "./key-cipher.js";
import { findKeyRecord, openKeyRecord, touchKey } from "./provider-key-rows.js";

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

/**
 * Which embedder and reranker serve a workspace. Without a selection: the service's own. With one,
 * each call opens the stored key (AES-GCM, microseconds) for the provider client it builds, so the
 * clear key lives only as long as that client; nothing caches it.
 *
 * - `embedderFor`: the space recall searches and ingest writes (the *active* space);
 * - `reembedTargetFor`: the space a re-embed job fills (the selected key's), or undefined when the
 *   workspace is where it should be.
 */
export interface TenantModels {
  embedderFor(tenantId: string): Promise<EmbeddingProvider>;
  rerankerFor(tenantId: string): Promise<Reranker | undefined>;
  /** Both at once (recall), with whether either came from a workspace key. */
  modelsFor(tenantId: string): Promise<{
    embedder: EmbeddingProvider;
    reranker: Reranker | undefined;
    byok: boolean;
  }>;
  reembedTargetFor(tenantId: string): Promise<EmbeddingProvider | undefined>;
  /** Drops what this process remembers of a workspace's selection (call after changing it). */
  forgetTenant(tenantId: string): void;
  /** Builds the embedder of one stored key (round trip tests, selection). */
  embedderOfKey(tx: TransactionSql, tenantId: string, keyId: string): Promise<EmbeddingProvider>;
  readonly defaultEmbedder: EmbeddingProvider;
  readonly defaultReranker: Reranker | undefined;
}

export interface TenantModelsOptions {
  readonly db: Database;
  readonly masterKey: MasterKey | undefined;
  readonly defaultEmbedder: EmbeddingProvider;
  readonly defaultReranker: Reranker | undefined;
  readonly logger: Logger;
  /** The SSRF guard of provider calls (PROVIDER_ALLOW_PRIVATE_URLS); default: public addresses only. */
  readonly guard?: OutboundGuard;
  /** Timeouts/retries of provider clients (tests shorten them). */
  readonly clientOptions?: Pick<ProviderClientOptions, "timeoutMs" | "maxRetries" | "retryBaseMs">;
  /** How long a workspace's use of the service's models is remembered (default 1 s). */
  readonly defaultsTtlMs?: number;
  readonly now?: () => number;
}

/**
 * Nothing chosen and nothing under way: no key selected, none active, no re-embed pending. Only this
 * state is remembered — it is left only through the selection (PUT /api/keys/selection), never by
 * the worker, whose switches happen while a re-embed is pending.
 */
const usesServiceModels = (selection: ModelSelectionRow | undefined): boolean =>
  selection === undefined ||
  (selection.embeddingKeyId === null &&
    selection.rerankKeyId === null &&
    selection.activeKeyId === null &&
    selection.targetSpace === null);

export function createTenantModels(options: TenantModelsOptions): TenantModels {
  const { db, logger } = options;
  const defaultsTtl = options.defaultsTtlMs ?? 1000;
  const now = options.now ?? Date.now;
  // Workspaces on the service's models, until when (recall and every write asked for their models
  // once per request: a transaction of four statements each, bench:load and bench:bulk-ingest). Like token lookups (core/auth/authenticate.ts)
  // a change made through another process takes effect within the TTL; through this one at once.
  const onDefaults = new Map<string, number>();
  // Bumped by forgetTenant: a lookup that started before a change must not store what it read.
  let changes = 0;

  const touch = (keyId: string) => () => {
    touchKey(db.sql, keyId).catch((error: unknown) =>
      logger.debug({ err: error, keyId }, "could not record provider key use"),
    );
  };

  async function clientOptionsOf(
    tx: TransactionSql,
    tenantId: string,
    keyId: string,
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
        { reason: "unauthorized", provider: record.provider },
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
      onUsed: touch(keyId),
    };
  }

  // A lookup under way per workspace: requests arriving meanwhile wait for it rather than each
  // running its own transaction (when the TTL ran out under load, every connection missed at once:
  // bench:load read the selection ≈ 30 times a second at 90 recalls per second).
  const underWay = new Map<string, Promise<unknown>>();

  const remembersDefaults = (tenantId: string) => (onDefaults.get(tenantId) ?? 0) > now();

  /**
   * `onDefaults` when the workspace is remembered on the service's models — or found so by the
   * lookup under way, which this request then waits for — else `read()`. Synchronous up to `read`:
   * the first of many concurrent requests starts its lookup before the next one looks.
   */
  function unlessOnDefaults<T>(tenantId: string, onDefaultsValue: T, read: () => Promise<T>): Promise<T> {
    if (remembersDefaults(tenantId)) return Promise.resolve(onDefaultsValue);
    const running = underWay.get(tenantId);
    if (running === undefined) return read();
    // Its outcome is its own caller's; this request only needs it finished.
    const afterIt = () => (remembersDefaults(tenantId) ? onDefaultsValue : read());
    return running.then(afterIt, afterIt);
  }

  /** Reads the selection in a tenant transaction, remembering "service models" for the TTL. */
  function lookUp<T>(
    tenantId: string,
    use: (tx: TransactionSql, selection: ModelSelectionRow | undefined) => Promise<T>,
  ): Promise<T> {
    const changesBefore = changes;
    const lookup = db.withTenant(tenantId, async (tx) => {
      const selection = await readModelSelection(tx, tenantId);
      if (usesServiceModels(selection) && changes === changesBefore) {
        if (onDefaults.size >= 10_000) onDefaults.clear();
        onDefaults.set(tenantId, now() + defaultsTtl);
      }
      return use(tx, selection);
    });
    if (!underWay.has(tenantId)) {
      underWay.set(tenantId, lookup);
      lookup
        .finally(() => {
          if (underWay.get(tenantId) === lookup) underWay.delete(tenantId);
        })
        .catch(() => undefined);
    }
    return lookup;
  }

  const embedderOfKey = async (tx: TransactionSql, tenantId: string, keyId: string) =>
    createProviderEmbedder(await clientOptionsOf(tx, tenantId, keyId));

  return {
    defaultEmbedder: options.defaultEmbedder,
    defaultReranker: options.defaultReranker,
    embedderOfKey,
    embedderFor(tenantId) {
      return unlessOnDefaults(tenantId, options.defaultEmbedder, () =>
        lookUp(tenantId, async (tx, selection) =>
          selection?.activeKeyId
            ? embedderOfKey(tx, tenantId, selection.activeKeyId)
            : options.defaultEmbedder,
        ),
      );
    },
    rerankerFor(tenantId) {
      return unlessOnDefaults(tenantId, options.defaultReranker, () =>
        lookUp(tenantId, async (tx, selection) =>
          selection?.rerankKeyId
            ? createProviderReranker(await clientOptionsOf(tx, tenantId, selection.rerankKeyId))
            : options.defaultReranker,
        ),
      );
    },
    modelsFor(tenantId) {
      const defaults = { embedder: options.defaultEmbedder, reranker: options.defaultReranker, byok: false };
      return unlessOnDefaults(tenantId, defaults, () =>
        lookUp(tenantId, async (tx, selection) => {
          if (!selection) return defaults;
          const embedder = selection.activeKeyId
            ? await embedderOfKey(tx, tenantId, selection.activeKeyId)
            : options.defaultEmbedder;
          const reranker = selection.rerankKeyId
            ? createProviderReranker(await clientOptionsOf(tx, tenantId, selection.rerankKeyId))
            : options.defaultReranker;
          return {
            embedder,
            reranker,
            byok: selection.activeKeyId !== null || selection.rerankKeyId !== null,
          };
        }),
      );
    },
    forgetTenant(tenantId) {
      changes++;
      onDefaults.delete(tenantId);
    },
    async reembedTargetFor(tenantId) {
      return db.withTenant(tenantId, async (tx) => {
        const selection = await readModelSelection(tx, tenantId);
        if (!selection || selection.targetSpace === null) return undefined;
        return selection.embeddingKeyId === null
          ? options.defaultEmbedder
          : embedderOfKey(tx, tenantId, selection.embeddingKeyId);
      });
    },
  };
}

/** A service's dependencies with the workspace's embedder in place of the service default. */
export async function withTenantEmbedder<D extends { readonly embedder: EmbeddingProvider }>(
  deps: D & { readonly models?: TenantModels | undefined },
  tenantId: string,
): Promise<D> {
  if (deps.models === undefined) return deps;
  return { ...deps, embedder: await deps.models.embedderFor(tenantId) };
}
