import type { Logger } from "../../config/logger.js";
import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import {
  createProviderEmbedder,
  createProviderReranker,
  type ProviderClientOptions,
} from "../models/http/create-provider-embedder.js";
import type { Reranker } from "../models/reranker.js";
import type { Database, TransactionSql } from "../store/database.js";
import type { MasterKey } from "./key-cipher.js";
import { clientOptionsOfKey } from "./key-client-options.js";
import { readModelSelection } from "./model-selection-row.js";
import { touchKey } from "./provider-key-rows.js";
import { ServiceModelsMemo } from "./service-models-memo.js";

export { type ModelSelectionRow, readModelSelection } from "./model-selection-row.js";

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

export function createTenantModels(options: TenantModelsOptions): TenantModels {
  const { db, logger } = options;
  const memo = new ServiceModelsMemo(db, options.defaultsTtlMs ?? 1000, options.now ?? Date.now);
  const clientOptionsOf = (tx: TransactionSql, tenantId: string, keyId: string) =>
    clientOptionsOfKey(tx, tenantId, keyId, {
      masterKey: options.masterKey,
      ...(options.clientOptions ? { clientOptions: options.clientOptions } : {}),
      ...(options.guard ? { guard: options.guard } : {}),
      onUsed: () => {
        touchKey(db.sql, keyId).catch((error: unknown) =>
          logger.debug({ err: error, keyId }, "could not record provider key use"),
        );
      },
    });
  const embedderOfKey = async (tx: TransactionSql, tenantId: string, keyId: string) =>
    createProviderEmbedder(await clientOptionsOf(tx, tenantId, keyId));

  return {
    defaultEmbedder: options.defaultEmbedder,
    defaultReranker: options.defaultReranker,
    embedderOfKey,
    embedderFor(tenantId) {
      return memo.unlessOnDefaults(tenantId, options.defaultEmbedder, () =>
        memo.lookUp(tenantId, async (tx, selection) =>
          selection?.activeKeyId
            ? embedderOfKey(tx, tenantId, selection.activeKeyId)
            : options.defaultEmbedder,
        ),
      );
    },
    rerankerFor(tenantId) {
      return memo.unlessOnDefaults(tenantId, options.defaultReranker, () =>
        memo.lookUp(tenantId, async (tx, selection) =>
          selection?.rerankKeyId
            ? createProviderReranker(await clientOptionsOf(tx, tenantId, selection.rerankKeyId))
            : options.defaultReranker,
        ),
      );
    },
    modelsFor(tenantId) {
      const defaults = { embedder: options.defaultEmbedder, reranker: options.defaultReranker, byok: false };
      return memo.unlessOnDefaults(tenantId, defaults, () =>
        memo.lookUp(tenantId, async (tx, selection) => {
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
      memo.forget(tenantId);
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
