import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidRequest, JsonRpcError } from "./json-rpc-error.js";

/** Our spec allows a null id ("id (string, integer or null)"); the answer then carries null too. */
export type JsonRpcId = string | number | null;

export type JsonRpcMessage =
  | { readonly kind: "request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string }
  /**
   * A client's answer to a server request: the only request this server sends is a 2025-11-25
   * elicitation on a tools/call’s response stream (elicitation-sessions.ts); any other is accepted and dropped.
   */
  | {
      readonly kind: "response";
      readonly id: JsonRpcId;
      readonly result?: unknown;
      readonly error?: unknown;
    };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * One POST body as one JSON-RPC 2.0 message. Batches are refused: MCP 2025-06-18 removed JSON-RPC
 * batching, and the spec's endpoint takes "JSON-RPC request" in the singular. Errors here have no
 * usable id and are answered with HTTP 400 and id null (JSON-RPC 2.0 §5).
 */
export function parseJsonRpcMessage(body: string): JsonRpcMessage {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new JsonRpcError(JSON_RPC_CODES.parseError, `Parse error: the body is not valid JSON (${detail})`, {
      httpStatus: 400,
    });
  }
  if (Array.isArray(value)) {
    throw invalidRequest(
      "Invalid request: batch arrays are not supported (MCP 2025-06-18 removed JSON-RPC batching); send one message per POST",
    );
  }
  if (!isObject(value)) throw invalidRequest("Invalid request: the body must be one JSON-RPC 2.0 object");
  if (value.jsonrpc !== "2.0") throw invalidRequest('Invalid request: "jsonrpc" must be "2.0"');
  const hasId = "id" in value;
  const id = value.id;
  if (hasId && !(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null)) {
    throw invalidRequest('Invalid request: "id" must be a string, a number or null');
  }
  if (!("method" in value)) {
    if (hasId && ("result" in value || "error" in value)) {
      return { kind: "response", id: id as JsonRpcId, result: value.result, error: value.error };
    }
    throw invalidRequest('Invalid request: "method" is missing');
  }
  if (typeof value.method !== "string" || value.method === "") {
    throw invalidRequest('Invalid request: "method" must be a non-empty string');
  }
  if (!hasId) return { kind: "notification", method: value.method };
  return { kind: "request", id: id as JsonRpcId, method: value.method, params: value.params };
}
