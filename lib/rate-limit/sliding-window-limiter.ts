import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { type Limiter, retryAfterSeconds } from "./limiter.js";

/**
 * A sliding window built from rate-limiter-flexible counters. The library has no sliding-window
 * class: every limiter of it (Memory, Redis, …) is an "enhanced fixed window" that opens at a key's
 * first request, so 5/60 s lets 5 requests through at 0:59 and 5 more at 1:00.
 *
 * Here a key owns `points` slots, each a one-point limiter with the full duration. A request takes
 * the first free slot; a taken slot frees itself `duration` after the request that took it. So at
 * any instant at most `points` slots are taken, i.e. no interval of `duration` seconds ever holds
 * more than `points` accepted requests: a sliding log of accepted requests, stored in the same
 * atomic counters (Redis or memory) as every other limit. Each slot's consume is atomic, so
 * concurrent requests can never share one. Rejected requests do not occupy a slot (they cost one
 * store round trip per slot, which is fine at sign-in volumes).
 */
export function createSlidingWindowLimiter(
  points: number,
  slot: (index: number) => RateLimiterAbstract,
): Limiter {
  const slots = Array.from({ length: points }, (_, i) => slot(i));
  return {
    async consume(key, requests = 1) {
      // A request takes one slot; several at once would need the slots taken atomically together.
      if (requests !== 1) throw new RangeError("a sliding window counts one request at a time");
      let soonestFreeMs = Number.POSITIVE_INFINITY;
      for (const limiter of slots) {
        try {
          await limiter.consume(key);
          return { allowed: true };
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          soonestFreeMs = Math.min(soonestFreeMs, rejection.msBeforeNext);
        }
      }
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(soonestFreeMs) };
    },
  };
}
