import { JSON_RPC_CODES, type JsonRpcCode } from "./json-rpc-codes.js";

export interface JsonRpcErrorOptions {
  /** The JSON-RPC error's `data` member. */
  readonly data?: Readonly<Record<string, unknown>>;
  /** HTTP status of the answer: 200 for errors of a well-formed request, 4xx for transport errors. */
  readonly httpStatus?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON-RPC error object plus how to send it over HTTP. */
export class JsonRpcError extends Error {
  readonly code: JsonRpcCode;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly httpStatus: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: JsonRpcCode, message: string, options: JsonRpcErrorOptions = {}) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = options.data;
    this.httpStatus = options.httpStatus ?? 200;
    this.headers = options.headers ?? {};
  }

  /**
   * The same error as revision 2026-07-28 frames it: its two codes that revision forbids moved out
   * of the reserved range (json-rpc-codes.ts), and the HTTP statuses it fixes — 404 for an unknown
   * method (Streamable HTTP "Protocol Version Header"), 400 for a request it calls malformed.
   */
  forModernRevision(): JsonRpcError {
    const code =
      this.code === JSON_RPC_CODES.scopeMissing
        ? JSON_RPC_CODES.scopeMissingModern
        : this.code === JSON_RPC_CODES.rateLimited
          ? JSON_RPC_CODES.rateLimitedModern
          : this.code;
    const httpStatus = this.code === JSON_RPC_CODES.methodNotFound ? 404 : this.httpStatus;
    if (code === this.code && httpStatus === this.httpStatus) return this;
    return new JsonRpcError(code, this.message, {
      ...(this.data === undefined ? {} : { data: this.data }),
      httpStatus,
      headers: this.headers,
    });
  }

  /** The `error` member of a JSON-RPC response. */
  toErrorObject(): { code: number; message: string; data?: Readonly<Record<string, unknown>> } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32602 for arguments or params that do not fit the published schema. */
export function invalidParams(message: string, field?: string): JsonRpcError {
  return new JsonRpcError(JSON_RPC_CODES.invalidParams, message, {
    data: field === undefined ? { reason: "validation" } : { reason: "validation", field },
  });
}

/** -32600 for a message or HTTP request the endpoint cannot accept (HTTP 400 unless told). */
export function invalidRequest(message: string, httpStatus = 400): JsonRpcError {
  return new JsonRpcError(JSON_RPC_CODES.invalidRequest, message, { httpStatus });
}
