import type { FastifyInstance } from "fastify";

/**
 * The spec's per-IP limits of public and onboarding routes (spec "Limits"). A route opts in by
 * name in its route config: `{ config: { ipRateLimit: "kuendigung" } }`. /health never has one.
 * Per-token limits and MCP's per-IP limit are enforced in core (core/auth/rate-limit-interceptor.ts),
 * where the plan is known.
 */
export const IP_RATE_LIMITS = {
  /** /api/auth/signin/*: 5 per 60 s, sliding window (spec). */
  signin: { points: 5, durationSeconds: 60, window: "sliding" },
  onboarding: { points: 10, durationSeconds: 60, window: "fixed" },
  checkout: { points: 10, durationSeconds: 60, window: "fixed" },
  kuendigung: { points: 5, durationSeconds: 60, window: "fixed" },
  /** OAuth authorization pages and client registration (docs/mcp.md "Connecting with OAuth"). */
  oauth: { points: 30, durationSeconds: 60, window: "fixed" },
  /**
   * OAuth token and revocation endpoints: called by the client's backend, where one address may
   * serve many users of a hosted assistant, hence more room than the browser pages.
   */
  oauthToken: { points: 120, durationSeconds: 60, window: "fixed" },
} as const satisfies Record<string, { points: number; durationSeconds: number; window: "fixed" | "sliding" }>;

export type IpRateLimitName = keyof typeof IP_RATE_LIMITS;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Per-IP limit of this route, by name from IP_RATE_LIMITS. */
    ipRateLimit?: IpRateLimitName;
  }
}

/**
 * Where limiters come from: the process's rate-limit store (Redis or memory), passed in by the
 * composition (core/auth/rate-limiters.ts implements it). Declared here so the edge depends on a
 * shape, not on core.
 */
export interface IpLimiterSource {
  limiter(spec: { name: string; points: number; durationSeconds: number; window: "fixed" | "sliding" }): {
    consume(key: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  };
}

/**
 * Installs the per-IP limits as one onRequest hook on the root instance, before the gateways
 * register, so every route sees it. The client IP is Fastify's request.ip: the socket address, or
 * the X-Forwarded-For client only when TRUST_PROXY is set.
 */
export function installIpRateLimits(app: FastifyInstance, source: IpLimiterSource): void {
  const limiters = Object.fromEntries(
    Object.entries(IP_RATE_LIMITS).map(([name, limit]) => [
      name,
      source.limiter({ name: `ip-${name}`, ...limit }),
    ]),
  ) as Record<IpRateLimitName, ReturnType<IpLimiterSource["limiter"]>>;
  app.addHook("onRequest", async (request, reply) => {
    const name = request.routeOptions.config.ipRateLimit;
    if (name === undefined) return;
    const decision = await limiters[name].consume(request.ip);
    if (decision.allowed) return;
    return reply
      .code(429)
      .header("retry-after", String(decision.retryAfterSeconds))
      .send({ error: `too many requests from this address; retry in ${decision.retryAfterSeconds} s` });
  });
}
