import type { FastifyReply, FastifyRequest } from "fastify";
import { invalidRequest, type JsonRpcError } from "./json-rpc-error.js";

/**
 * The DNS-rebinding defence of the Streamable HTTP transport (MCP 2025-06-18 and later, "Security
 * Warning": servers MUST validate the Origin header; present and invalid → 403). A page on another
 * site — or on a name that was rebound to this server's address — cannot call the endpoint from a
 * browser. Allowed: the service's own origin (PUBLIC_URL) and the configured CORS_ORIGINS. A request
 * without Origin is not from a browser page (assistants, SDKs, curl) and passes; the bearer token
 * is what authenticates it.
 */
export function createOriginCheck(
  publicUrl: string,
  corsOrigins: readonly string[],
): (origin: string | undefined) => JsonRpcError | undefined {
  const allowed = new Set([new URL(publicUrl).origin, ...corsOrigins.map((o) => originOf(o))]);
  return (origin) => {
    if (origin === undefined || allowed.has(origin.toLowerCase())) return undefined;
    return invalidRequest(
      `Origin '${origin.slice(0, 100)}' is not allowed to call this endpoint (DNS-rebinding defence); allowed: this service's own origin and CORS_ORIGINS`,
      403,
    );
  };
}

/** "https://App.example/" → "https://app.example"; a value that is no URL stays as written. */
function originOf(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    return value.toLowerCase();
  }
}

/** The endpoint's onRequest hook: a refused Origin is answered here (403), any other passes on. */
export type OriginHook = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
