import { createHash } from "node:crypto";

/**
 * What a gateway remembers to route a credential's calls to its workspace's core (ADR 0380): the
 * credential — a SHA-256 of its authorization header or session token, never the secret itself —
 * mapped to the workspace route core named in its last answer (ROUTE_HEADER). Bounded: the least
 * recently used credential is forgotten first, and a forgotten one is learnt again on its next call.
 */
export interface RouteCache {
  /** The route core last named for this credential key, if still held. */
  get(credentialKey: string): string | undefined;
  set(credentialKey: string, route: string): void;
  readonly size: number;
}

/** The credential key of a core call's metadata, or undefined for a call without credentials. */
export function credentialKeyOf(header: Headers): string | undefined {
  const authorization = header.get("authorization");
  if (authorization !== null) return hashCredential("authorization", authorization);
  const session = header.get("x-session-token");
  if (session !== null) return hashCredential("session", session);
  return undefined;
}

function hashCredential(kind: string, secret: string): string {
  return createHash("sha256").update(`${kind}\0${secret}`).digest("base64url");
}

export function createRouteCache(maxEntries: number): RouteCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const routes = new Map<string, string>();
  return {
    get(credentialKey) {
      const route = routes.get(credentialKey);
      if (route !== undefined) {
        routes.delete(credentialKey);
        routes.set(credentialKey, route);
      }
      return route;
    },
    set(credentialKey, route) {
      routes.delete(credentialKey);
      routes.set(credentialKey, route);
      if (routes.size > maxEntries) {
        const oldest = routes.keys().next();
        if (!oldest.done) routes.delete(oldest.value);
      }
    },
    get size() {
      return routes.size;
    },
  };
}
