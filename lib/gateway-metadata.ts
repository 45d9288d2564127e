import { createHash } from "node:crypto";

/**
 * Request metadata the gateways send to core besides credentials. Core trusts it only from callers
 * it was told to trust (`trustClientIp`: the in-process gateways, or gateways on a private network).
 *
 * The MCP gateway sets `GATEWAY_HEADER: MCP_GATEWAY` on every core call it makes, so core can apply
 * the spec's "/api/mcp/v1 with the api plan (per IP) 60 / 60 s" limit keyed on `CLIENT_IP_HEADER`.
 * A leaf module: gateways and core both import it, and it imports nothing of ours.
 */
export const CLIENT_IP_HEADER = "x-client-ip";
export const GATEWAY_HEADER = "x-service-gateway";
export const MCP_GATEWAY = "mcp";

/**
 * Path of the MCP endpoint, the protected resource of the OAuth authorization server: core binds an
 * OAuth access token to `${PUBLIC_URL}${MCP_RESOURCE_PATH}` (RFC 8707) and accepts it only on calls
 * the MCP gateway marks with GATEWAY_HEADER.
 */
export const MCP_RESOURCE_PATH = "/api/mcp/v1";

/**
 * Response header core adds to every call it authenticated to a workspace: the workspace's route,
 * the key gateways route that workspace's calls by (rendezvous hashing over the core endpoints,
 * ADR 0380), so each workspace's derived state lives on one core of a fleet. A hash of the tenant
 * id, never the id itself, nor anything of the credential.
 */
export const ROUTE_HEADER = "x-memory-route";

/** The route of a workspace: 128 bits of SHA-256 over the tenant id, domain-separated, base64url. */
export function tenantRoute(tenantId: string): string {
  return createHash("sha256").update(`memory-route\0${tenantId}`).digest("base64url").slice(0, 22);
}

/**
 * A key a gateway gives each write its caller sent without an Idempotency-Key. Core keeps the answer
 * under it only if the write runs long (core/idempotency/idempotent-writes.ts, "late claim"), so a
 * caller whose request timed out (504) or was refused while the database stalled (503) can retry
 * with this key as its Idempotency-Key and learn the write's result instead of writing twice. Fast
 * writes, nearly all, cost nothing.
 */
export const WRITE_KEY_HEADER = "x-memory-write-key";

/**
 * The writes an idempotency key applies to (issue 15): every non-idempotent write of the spec, by
 * core method path. Core keeps and replays their answers; gateways give these, and only these, a
 * write key and name it when they time out.
 */
export const KEYED_WRITE_METHODS: ReadonlySet<string> = new Set([
  "memory.v1.IngestService/StoreMemory",
  "memory.v1.IngestService/StoreMemories",
  "memory.v1.IngestService/UploadDocument",
  "memory.v1.IngestService/IngestDocument",
  "memory.v1.IngestService/UploadFile",
  "memory.v1.GraphService/UpdateFact",
]);
