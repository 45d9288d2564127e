import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The anti-CSRF token of a session: derived from the session token (which only the server and the
 * HttpOnly cookie know), so it needs no storage and dies with the session. One-way: the page that
 * carries it cannot recover the session token from it. Used by the dashboard (header) and the OAuth
 * consent form (hidden field).
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash("sha256").update(`dashboard-csrf\u0000${sessionToken}`).digest("base64url");
}

/** Whether `given` is the session's token, compared in constant time. */
export function isCsrfTokenOf(given: string | undefined, sessionToken: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(csrfTokenFor(sessionToken));
  return a.length === b.length && timingSafeEqual(a, b);
}
