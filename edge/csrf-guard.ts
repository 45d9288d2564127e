import type { FastifyInstance, FastifyRequest } from "fastify";
import { CSRF_HEADER, SESSION_COOKIE } from "../gateway-kit/credentials.js";
import { isCsrfTokenOf } from "../lib/csrf-token.js";

export { csrfTokenFor } from "../lib/csrf-token.js";
/** The header the dashboard sends its anti-CSRF token in (never a cookie: a form cannot set it). */
export { CSRF_HEADER };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Routes that accept the session cookie (the spec's Auth column, as the REST routes state it). */
const COOKIE_AUTH = new Set(["Session", "Both"]);

/**
 * Why a cookie-authenticated write must be refused, or undefined when it may go on. `corsOrigins`
 * (CORS_ORIGINS) are origins the operator allowed to call with credentials: trusted like our own
 * pages, without the token (they cannot get it), as before this guard.
 */
export function csrfRefusal(
  request: FastifyRequest,
  publicOrigin: string,
  corsOrigins: ReadonlySet<string> = new Set(),
): string | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  if (!COOKIE_AUTH.has(request.routeOptions.schema?.["x-auth"] ?? "")) return undefined;
  const session = request.cookies[SESSION_COOKIE];
  // A bearer token wins over the cookie (gateway-kit/credentials.ts): no cookie, no CSRF.
  if (session === undefined || request.headers.authorization !== undefined) return undefined;
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  if (origin === undefined && site === undefined) {
    // Every browser sends Origin (and Fetch Metadata) on a POST, PUT or DELETE, so this caller is
    // not a browser (curl, a script holding its own cookie): nothing a foreign page could forge.
    return undefined;
  }
  if (origin !== undefined && corsOrigins.has(origin)) return undefined;
  if (origin !== undefined && origin !== publicOrigin) return "cross-origin request refused";
  if (site !== undefined && site !== "same-origin") return "cross-site request refused";
  const token = request.headers[CSRF_HEADER];
  if (typeof token !== "string" || !isCsrfTokenOf(token, session)) {
    return `missing or wrong ${CSRF_HEADER} header (sent by the dashboard on every change)`;
  }
  return undefined;
}

/**
 * CSRF protection of every state-changing request that a browser makes with the session cookie
 * (issue 19): same origin (Origin and Sec-Fetch-Site) and the session's token in a custom header.
 * SameSite=Lax already keeps the cookie off cross-site POSTs; this also refuses same-site pages on
 * other origins (another port or subdomain) and older browsers. API tokens are unaffected.
 */
export function installCsrfGuard(
  app: FastifyInstance,
  publicUrl: string,
  corsOrigins: readonly string[] = [],
): void {
  const publicOrigin = new URL(publicUrl).origin;
  const allowed = new Set(corsOrigins);
  app.addHook("onRequest", async (request, reply) => {
    const refusal = csrfRefusal(request, publicOrigin, allowed);
    if (refusal !== undefined) return reply.code(403).send({ error: refusal });
    return undefined;
  });
}
