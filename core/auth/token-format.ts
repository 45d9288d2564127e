import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** API token format (spec "API token"): kmt_ + 43 base64url characters = 32 random bytes. */
export const API_TOKEN_PATTERN = /^kmt_[A-Za-z0-9_-]{43}$/;

export function generateApiToken(): string {
  return `kmt_${randomBytes(32).toString("base64url")}`;
}

/** Session and magic-link secrets: 32 random bytes, base64url. */
export function generateSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Tokens and secrets are stored only as this hash. */
export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Reads `Authorization: Bearer <token>` strictly: the scheme exactly "Bearer", exactly one space,
 * a token of the documented format. Anything else is malformed (401), never a guess.
 */
export function parseBearer(
  header: string | null | undefined,
): { token: string } | { error: string } | undefined {
  if (header === null || header === undefined || header === "") return undefined;
  if (!header.startsWith("Bearer ")) return { error: "Authorization header must be 'Bearer <token>'" };
  const token = header.slice(7);
  if (!API_TOKEN_PATTERN.test(token)) return { error: "malformed API token" };
  return { token };
}
