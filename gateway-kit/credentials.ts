import { context, propagation } from "@opentelemetry/api";
import type { FastifyRequest } from "fastify";

/** Which credentials a route accepts (spec endpoint table: Bearer, Session, Both, None). */
export type RouteAuth = "bearer" | "session" | "both" | "none";

export const SESSION_COOKIE = "service.session-token";

/**
 * The dashboard's anti-CSRF header (lib/csrf-token.ts). Forwarded to core with the session: a
 * session call that carries its own token is a dashboard call and has the dashboard's budget
 * instead of the plan's per-credential limit (core/auth/rate-limit-interceptor.ts, ADR 0450).
 */
export const CSRF_HEADER = "x-csrf-token";

/**
 * Headers for the core call: only the credentials the route accepts are forwarded, so a bearer
 * token on a session-only route reaches core as "no credentials" and is answered 401 there. The
 * client IP goes along for per-IP limits and audit; core trusts it only from in-process or
 * configured gateways.
 */
export function forwardedHeaders(request: FastifyRequest, auth: RouteAuth): Record<string, string> {
  const headers: Record<string, string> = { "x-client-ip": request.ip, "x-request-id": String(request.id) };
  // W3C traceparent of the current span, so a core in another process continues the trace.
  propagation.inject(context.active(), headers);
  if (auth === "bearer" || auth === "both") {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) headers.authorization = authorization;
  }
  if (auth === "session" || auth === "both") {
    const session = request.cookies[SESSION_COOKIE];
    if (session !== undefined && (auth === "session" || request.headers.authorization === undefined)) {
      headers["x-session-token"] = session;
      const csrf = request.headers[CSRF_HEADER];
      if (typeof csrf === "string") headers[CSRF_HEADER] = csrf;
    }
  }
  return headers;
}
