import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Small, short-lived JSON values the server hands a client and reads back later (a 2026-07-28
 * `requestState`, valid minutes), sealed with an HMAC keyed by the caller's own credential — the same
 * idea as the dashboard's CSRF token (lib/csrf-token.ts): no server secret and no storage,
 * so any gateway replica can check them, and a value minted for one token does not verify with any
 * other (the 2026-07-28 MRTR rule "bind requestState to the authenticated principal"). Integrity
 * only, not secrecy: the payload is readable base64url JSON and holds nothing private. Not for
 * values that must outlive a token refresh (the 2025-11-25 session id: session-id.ts, ADR 0425).
 */
function mac(purpose: string, credential: string, payload: string): string {
  return createHmac("sha256", `mcp-sealed\u0000${purpose}\u0000${credential}`)
    .update(payload)
    .digest("base64url");
}

export function seal(purpose: string, credential: string, value: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}.${mac(purpose, credential, payload)}`;
}

/** The sealed value, or undefined when it was not sealed for this purpose and credential. */
export function unseal(
  purpose: string,
  credential: string,
  sealed: string | undefined,
): Record<string, unknown> | undefined {
  if (sealed === undefined || sealed.length > 4096) return undefined;
  const dot = sealed.indexOf(".");
  if (dot <= 0) return undefined;
  const payload = sealed.slice(0, dot);
  const given = Buffer.from(sealed.slice(dot + 1));
  const expected = Buffer.from(mac(purpose, credential, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
