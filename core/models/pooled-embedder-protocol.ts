import type { EmbedPurpose } from "./embedding-provider.js";
import { ProviderError, type ProviderErrorReason } from "./provider-error.js";
import { isRecord } from "./read-json-file.js";

/** What a pool worker is started with: which factory to call, with what. */
export interface PoolWorkerData {
  /** URL of the worker module the bootstrap imports (pooled-embedder-worker.ts). */
  readonly workerEntry: string;
  readonly moduleUrl: string;
  readonly exportName: string;
  readonly options: unknown;
  /** Niceness the worker thread sets on itself before it starts its provider (undefined: as the process). */
  readonly niceness?: number;
}

export type ToWorker =
  | {
      readonly type: "embed";
      readonly job: number;
      readonly texts: readonly string[];
      readonly purpose: EmbedPurpose;
    }
  | { readonly type: "close" };

export type FromWorker =
  | { readonly type: "ready"; readonly id: string; readonly dim: number }
  | { readonly type: "failed"; readonly error: SerializedError }
  | { readonly type: "result"; readonly job: number; readonly vectors: Float32Array[] }
  | { readonly type: "error"; readonly job: number; readonly error: SerializedError };

/** Errors cross the thread boundary as plain data; ProviderError keeps its reason. */
export interface SerializedError {
  readonly message: string;
  readonly reason?: ProviderErrorReason;
  readonly provider?: string;
  readonly status?: number;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ProviderError) {
    return {
      message: error.message,
      reason: error.reason,
      provider: error.provider,
      ...(error.status === undefined ? {} : { status: error.status }),
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

export function deserializeError(error: SerializedError, provider: string): ProviderError {
  return new ProviderError(error.message, {
    reason: error.reason ?? "inference_failed",
    provider: error.provider ?? provider,
    ...(error.status === undefined ? {} : { status: error.status }),
  });
}

export function isFromWorker(message: unknown): message is FromWorker {
  return isRecord(message) && typeof message.type === "string";
}
