import type { IncomingHttpHeaders } from "node:http";
import { JSON_RPC_CODES } from "./json-rpc-codes.js";
import { invalidRequest, JsonRpcError } from "./json-rpc-error.js";
import type { JsonRpcMessage } from "./parse-json-rpc-message.js";
import {
  BASELINE_REVISION,
  isLegacyRevision,
  LEGACY_REVISIONS,
  META_KEYS,
  MODERN_REVISION,
  type Revision,
  SUPPORTED_REVISIONS,
} from "./protocol-revisions.js";

/** Which revision frames one POST, and for 2026-07-28 the client capabilities it declared. */
export type RequestEra =
  | { readonly revision: typeof MODERN_REVISION; readonly clientCapabilities: Record<string, unknown> }
  | { readonly revision: Exclude<Revision, typeof MODERN_REVISION> };

/** Methods whose Mcp-Name header mirrors params.name (Streamable HTTP "Standard Request Headers"). */
const NAMED_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function headerMismatch(message: string): JsonRpcError {
  return new JsonRpcError(JSON_RPC_CODES.headerMismatch, `Header mismatch: ${message}`, { httpStatus: 400 });
}

/** A 2026-07-28 request that is malformed ("_meta": -32602 with HTTP 400). */
function malformed(message: string, field: string): JsonRpcError {
  return new JsonRpcError(JSON_RPC_CODES.invalidParams, message, {
    data: { reason: "validation", field },
    httpStatus: 400,
  });
}

/**
 * An Mcp-Name value as the body has it: the Base64 sentinel `=?base64?…?=` decoded ("Value
 * Encoding"); undefined when the value holds characters no header value may (RFC 9110 field values).
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!/^[\t\x20-\x7e]*$/.test(value)) return undefined;
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!sentinel) return value;
  return Buffer.from(sentinel[1] ?? "", "base64").toString("utf8");
}

/**
 * 2026-07-28 "Server Validation": MCP-Protocol-Version, Mcp-Method and (for named methods) Mcp-Name
 * must be present and equal the body's values, else -32020 with HTTP 400.
 */
function checkModernHeaders(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown>,
  version: string,
) {
  const protocolHeader = header(headers, "mcp-protocol-version");
  if (protocolHeader === undefined) throw headerMismatch("the MCP-Protocol-Version header is missing");
  if (protocolHeader !== version) {
    throw headerMismatch(
      `MCP-Protocol-Version header value '${protocolHeader}' does not match body value '${version}'`,
    );
  }
  const methodHeader = header(headers, "mcp-method");
  if (methodHeader === undefined) throw headerMismatch("the Mcp-Method header is missing");
  if (methodHeader !== method) {
    throw headerMismatch(`Mcp-Method header value '${methodHeader}' does not match body value '${method}'`);
  }
  if (!NAMED_METHODS.has(method)) return;
  const nameHeader = header(headers, "mcp-name");
  if (nameHeader === undefined)
    throw headerMismatch(`the Mcp-Name header is missing (required for ${method})`);
  const name = decodeHeaderValue(nameHeader);
  if (name === undefined) throw headerMismatch("the Mcp-Name header holds characters a header value may not");
  if (name !== params.name) {
    throw headerMismatch(
      `Mcp-Name header value '${name}' does not match body value '${String(params.name)}'`,
    );
  }
}

/**
 * The versioning page's dual-era rule: a request carrying the per-request `_meta` protocol version
 * is served statelessly as 2026-07-28; anything else is a 2025 request, framed by its
 * MCP-Protocol-Version header (absent: 2025-06-18, the spec's revision). A request that claims
 * 2026-07-28 by header or asks `server/discover` without the `_meta` fields is a malformed modern one.
 */
export function classifyRequest(headers: IncomingHttpHeaders, message: JsonRpcMessage): RequestEra {
  const protocolHeader = header(headers, "mcp-protocol-version");
  if (message.kind === "request") {
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : undefined;
    const requested = meta?.[META_KEYS.protocolVersion];
    if (
      requested !== undefined ||
      protocolHeader === MODERN_REVISION ||
      message.method === "server/discover"
    ) {
      if (typeof requested !== "string") {
        throw malformed(
          `Invalid params: _meta["${META_KEYS.protocolVersion}"] is required in revision ${MODERN_REVISION}`,
          `_meta.${META_KEYS.protocolVersion}`,
        );
      }
      if (requested !== MODERN_REVISION) {
        // Versioning "Protocol Version Negotiation": UnsupportedProtocolVersionError with HTTP 400.
        throw new JsonRpcError(JSON_RPC_CODES.unsupportedProtocolVersion, "Unsupported protocol version", {
          data: { supported: [...SUPPORTED_REVISIONS], requested },
          httpStatus: 400,
        });
      }
      const capabilities = meta?.[META_KEYS.clientCapabilities];
      if (!isObject(capabilities)) {
        throw malformed(
          `Invalid params: _meta["${META_KEYS.clientCapabilities}"] is required in revision ${MODERN_REVISION}`,
          `_meta.${META_KEYS.clientCapabilities}`,
        );
      }
      checkModernHeaders(headers, message.method, params, requested);
      return { revision: MODERN_REVISION, clientCapabilities: capabilities };
    }
  }
  // 2026-07-28 defines no client notification over HTTP; one that comes anyway is accepted (202).
  if (message.kind !== "request" && protocolHeader === MODERN_REVISION) {
    return { revision: MODERN_REVISION, clientCapabilities: {} };
  }
  // Transport "Protocol Version Header" (2025): unsupported → 400; absent → a client from before
  // the header existed, served as 2025-06-18.
  if (protocolHeader === undefined) return { revision: BASELINE_REVISION };
  if (isLegacyRevision(protocolHeader)) return { revision: protocolHeader };
  throw invalidRequest(
    `Unsupported MCP-Protocol-Version '${protocolHeader}': this server speaks ${[...LEGACY_REVISIONS].reverse().join(" and ")} after initialize, and ${MODERN_REVISION} with per-request _meta`,
  );
}
