/**
 * Every JSON-RPC error code the MCP gateway answers with (docs/mcp.md "Errors").
 * -32700…-32603 are JSON-RPC 2.0's own; -32000 and -32002 are fixed by the spec's "JSON-RPC error
 * codes" table; the rest are our choices in the implementation-defined range -32000…-32099.
 */
export const JSON_RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** Also content_required, too_large and ingest_failed, told apart by data.reason (spec). */
  internalError: -32603,
  /** Spec: "service token unconfigured or provider error". */
  providerError: -32000,
  /** Sent with HTTP 401 and WWW-Authenticate: Bearer. */
  unauthenticated: -32001,
  /** Spec: "required scope (read or write) missing". */
  scopeMissing: -32002,
  /** The spec's 402 plan gate; data is the plan-gate body. */
  planUpgradeRequired: -32003,
  /** The spec's 404 for unknown memory or relation ids. */
  notFound: -32004,
  /** State conflicts (409): a superseded version, an existing resource. */
  conflict: -32005,
  /** The spec's 503 class: database, vector store or memory service unavailable (also timeouts). */
  unavailable: -32006,
  /** Sent with HTTP 429 and Retry-After. */
  rateLimited: -32029,
  /** 2026-07-28 HeaderMismatch (HTTP 400): MCP-Protocol-Version, Mcp-Method or Mcp-Name missing or not the body's. */
  headerMismatch: -32020,
  /** 2026-07-28 UnsupportedProtocolVersion (HTTP 400), data `{supported, requested}`. */
  unsupportedProtocolVersion: -32022,
  /**
   * On 2026-07-28 only: -32002 and -32029 become these (json-rpc-error.ts `forRevision`). That
   * revision reserves -32020…-32099 for codes it defines and forbids -32002 (its old "resource not
   * found"); codes of an application's own belong outside -32768…-32000. data.reason is unchanged.
   */
  scopeMissingModern: -31002,
  rateLimitedModern: -31029,
} as const;

export type JsonRpcCode = (typeof JSON_RPC_CODES)[keyof typeof JSON_RPC_CODES];
