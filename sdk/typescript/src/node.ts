import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import type { TokenSource } from "./auth.js";
import { createMemoryClient, type MemoryClient, memoryInterceptors } from "./client.js";
import type { RetryOptions } from "./retry.js";

export interface NodeClientOptions {
  /** Core's address (GRPC_PORT), e.g. `https://memory.example.com` or `http://127.0.0.1:50051`. */
  readonly baseUrl: string;
  /** API token, or a function returning the current one. */
  readonly token?: TokenSource;
  /** "grpc" (default: HTTP/2) or "connect" (HTTP/1.1 or HTTP/2, JSON-friendly). */
  readonly protocol?: "grpc" | "connect";
  /** Retry tuning, or false for none. At most three retries whatever is asked. */
  readonly retry?: RetryOptions | false;
  /** Per-call deadline in milliseconds when the call sets none. Default 30 s. */
  readonly timeoutMs?: number;
}

/** The memory service's clients for Node: one HTTP/2 connection, bearer token, retries. */
export function createNodeMemoryClient(options: NodeClientOptions): MemoryClient {
  const interceptors = memoryInterceptors({
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  });
  const common = {
    baseUrl: options.baseUrl,
    interceptors,
    defaultTimeoutMs: options.timeoutMs ?? 30_000,
  };
  const transport =
    options.protocol === "connect"
      ? createConnectTransport({ ...common, httpVersion: "2" })
      : createGrpcTransport(common);
  return createMemoryClient(transport);
}

export * from "./index.js";
