import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";

/** One limit: `points` requests per `durationSeconds`, counted per key. */
export interface LimitSpec {
  /** Names the limit in store keys ("signin", "token", "mcp-ip"); distinct limits never share counters. */
  readonly name: string;
  readonly points: number;
  /** Whole seconds (Redis expiries are in seconds). */
  readonly durationSeconds: number;
  /**
   * "fixed": rate-limiter-flexible's window, which opens at a key's first request (cheap, one
   * counter). "sliding": no interval of `durationSeconds` ever holds more than `points` accepted
   * requests (the spec asks this of sign-in); see sliding-window-limiter.ts.
   */
  readonly window: "fixed" | "sliding";
}

export type LimitDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/** A limit bound to a store; `consume` counts `points` requests (default one) for `key`. */
export interface Limiter {
  consume(key: string, points?: number): Promise<LimitDecision>;
}

/** Retry-After is whole seconds, at least 1 (spec "Limits": header `Retry-After` in seconds). */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/** Adapts a rate-limiter-flexible limiter: a rejection with RateLimiterRes means "over the limit". */
export function fromFlexible(limiter: RateLimiterAbstract): Limiter {
  return {
    async consume(key, points = 1) {
      try {
        await limiter.consume(key, points);
        return { allowed: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext) };
        }
        throw rejection;
      }
    },
  };
}
