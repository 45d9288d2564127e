import { isMessage } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { StoreMemoriesRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { isCsrfTokenOf } from "../../lib/csrf-token.js";
import { GATEWAY_HEADER, MCP_GATEWAY } from "../../lib/gateway-metadata.js";
import type { RateLimiters } from "../../lib/rate-limit/rate-limiters.js";
import { invalidArgument, rateLimited } from "../errors.js";
import { DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION } from "../plans/plans.js";
import { clientIpKey, principalKey } from "./principal.js";
import { readSessionCookie } from "./session-cookie.js";

/**
 * Per-credential limits after authentication (spec "Limits"), in core so direct gRPC clients are
 * limited exactly like the gateways:
 * - per token per minute by plan (plans.ts: Privat 30, Pro 60, Team/Business 120, Enterprise 600).
 *   Sessions count the same way per session: on every plan but api, a session is the only
 *   credential, so limiting only tokens would leave those plans' limits without effect;
 * - except the dashboard's own calls (ADR 0450): a session call that carries the session's anti-CSRF
 *   token (x-csrf-token, which only the dashboard page holds) has a budget of its own,
 *   DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION on every plan, so a user clicking through the pages
 *   never locks themselves out on the free plan's 30 per minute; still a limit against abuse;
 * - MCP per client IP per 60 s where the plan has one (api: 60), for calls the MCP gateway marks
 *   with GATEWAY_HEADER. The IP is the x-client-ip a trusted gateway forwarded.
 * Public methods (sign-in, health, reflection) carry no principal and are not limited here; the
 * edge limits sign-in per IP.
 */
export function createRateLimitInterceptor(limiters: RateLimiters): Interceptor {
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal.kind === "anonymous" || !principal.limits) return next(req);
    const perMcpIp = principal.limits.mcpRequestsPerMinutePerIp;
    const ip = req.contextValues.get(clientIpKey);
    if (perMcpIp !== undefined && ip && req.header.get(GATEWAY_HEADER) === MCP_GATEWAY) {
      const decision = await limiters
        .limiter({ name: "mcp-ip", points: perMcpIp, durationSeconds: 60, window: "fixed" })
        .consume(ip);
      if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    }
    const key = principal.kind === "token" ? `token:${principal.tokenId}` : `session:${principal.sessionId}`;
    const dashboard = principal.kind === "session" && isDashboardCall(req.header);
    const perMinute = dashboard
      ? DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION
      : principal.limits.requestsPerMinutePerToken;
    const points = requestCount(req.message);
    if (points > perMinute) {
      throw invalidArgument(
        "memories",
        `memories: a batch of ${points} entries counts as ${points} requests against this credential's limit of ${perMinute} per minute; send at most ${perMinute} entries per call`,
      );
    }
    const decision = await limiters
      .limiter({
        name: dashboard ? "dashboard" : "credential",
        points: perMinute,
        durationSeconds: 60,
        window: "fixed",
      })
      .consume(key, points);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    return next(req);
  };
}

/**
 * How many requests a call counts as: a batch one per entry, so batching saves a call's overhead but
 * never raises a plan's write rate; every other call one.
 */
function requestCount(message: unknown): number {
  return isMessage(message, StoreMemoriesRequestSchema) ? Math.max(1, message.memories.length) : 1;
}

/**
 * Whether a session call comes from the dashboard: it carries the anti-CSRF token derived from the
 * very session token it authenticates with (lib/csrf-token.ts). Only the dashboard page holds that
 * token; a session cookie alone (a script) keeps the plan's limit.
 */
function isDashboardCall(header: Headers): boolean {
  // The same session token the auth interceptor authenticated (gateway header, else the cookie).
  const session = header.get("x-session-token") ?? readSessionCookie(header.get("cookie"));
  const csrf = header.get("x-csrf-token");
  return session !== undefined && csrf !== null && isCsrfTokenOf(csrf, session);
}
