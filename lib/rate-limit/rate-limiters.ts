import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import type { Logger } from "../../config/logger.js";
import { requireOnUse } from "../require-on-use.js";
import { fromFlexible, type Limiter, type LimitSpec } from "./limiter.js";
import { createSlidingWindowLimiter } from "./sliding-window-limiter.js";

/**
 * The rate-limit store of one process: Redis when REDIS_URL is set (shared by every replica),
 * memory otherwise. Core (per token, MCP per IP) and the edge (per IP per route) draw their
 * limiters from the same instance, so one Redis connection serves both.
 */
export interface RateLimiters {
  readonly backend: "redis" | "memory";
  /** False while Redis is configured but not connected (limits then count per process). */
  shared(): boolean;
  limiter(spec: LimitSpec): Limiter;
  close(): Promise<void>;
}

export interface RateLimitersOptions {
  readonly redisUrl?: string | undefined;
  /** Prefix of every store key, so services (and test runs) sharing one Redis never collide. */
  readonly keyPrefix: string;
  readonly logger: Logger;
}

/**
 * The Redis client of the rate limits. ioredis (45 modules) is loaded here, with REDIS_URL set: a
 * single instance limits in memory and never holds it (docs/observability.md "Idle memory").
 */
function connectRedis(url: string): Redis {
  const { Redis: Client } = requireOnUse("ioredis") as typeof import("ioredis");
  return new Client(url, {
    // Fail fast into the in-memory insurance limiter instead of queueing while Redis is away.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  });
}

export function createRateLimiters(options: RateLimitersOptions): RateLimiters {
  const { logger } = options;
  const redis = options.redisUrl ? connectRedis(options.redisUrl) : undefined;
  let redisDownLogged = false;
  redis?.on("error", (error: Error) => {
    // Logged once per outage: ioredis reconnects by itself and emits an error per attempt.
    if (redisDownLogged) return;
    redisDownLogged = true;
    logger.warn({ err: error }, "Redis for rate limits unreachable; limiting per process until it is back");
  });
  redis?.on("ready", () => {
    redisDownLogged = false;
  });
  const cache = new Map<string, Limiter>();

  function flexible(spec: { name: string; points: number; durationSeconds: number }): RateLimiterAbstract {
    const keyPrefix = `${options.keyPrefix}:${spec.name}:${spec.points}/${spec.durationSeconds}`;
    const memory = new RateLimiterMemory({ keyPrefix, points: spec.points, duration: spec.durationSeconds });
    if (!redis) return memory;
    // While Redis is unreachable each process limits on its own (insurance) rather than letting
    // everything through or rejecting everything.
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: spec.points,
      duration: spec.durationSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  }

  return {
    backend: redis ? "redis" : "memory",
    shared: () => redis?.status === "ready",
    limiter(spec) {
      const id = `${spec.name}:${spec.points}/${spec.durationSeconds}:${spec.window}`;
      let limiter = cache.get(id);
      if (!limiter) {
        limiter =
          spec.window === "sliding"
            ? createSlidingWindowLimiter(spec.points, (slot) =>
                flexible({
                  name: `${spec.name}:slot${slot}`,
                  points: 1,
                  durationSeconds: spec.durationSeconds,
                }),
              )
            : fromFlexible(flexible(spec));
        cache.set(id, limiter);
      }
      return limiter;
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
