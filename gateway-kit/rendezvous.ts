import { createHash } from "node:crypto";

/**
 * Rendezvous (highest-random-weight) hashing, Thaler & Ravishankar 1998: each endpoint scores a key
 * with a hash of the pair, and the key belongs to the highest score. The rest of the order is the
 * key's failover order: when its endpoint is gone, the key moves to its second choice — the one it
 * would have had without that endpoint — and no other key moves. Adding an endpoint takes from every
 * other endpoint the keys it now scores highest for, ≈ 1/(N+1) of them, and moves nothing else.
 */

/** 48 bits of SHA-256 over (endpoint, key): uniform, the same in every process. */
export function rendezvousScore(key: string, endpoint: string): number {
  return createHash("sha256").update(endpoint).update("\0").update(key).digest().readUIntBE(0, 6);
}

/** The endpoints in the key's rendezvous order: its owner first, then where it fails over to. */
export function rendezvousOrder<E extends string>(key: string, endpoints: readonly E[]): E[] {
  return endpoints
    .map((endpoint) => ({ endpoint, score: rendezvousScore(key, endpoint) }))
    .sort((a, b) => b.score - a.score || (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0))
    .map((s) => s.endpoint);
}
