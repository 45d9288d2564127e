/** Name of the session cookie (spec "Authentication"). */
export const SESSION_COOKIE = "service.session-token";

/** Reads the session token from a Cookie header; undefined when absent. */
export function readSessionCookie(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
