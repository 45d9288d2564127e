import type { Interceptor } from "@connectrpc/connect";
import { MCP_GATEWAY, MCP_RESOURCE_PATH } from "../../lib/gateway-metadata.js";
import type { RateLimiters } from "../../lib/rate-limit/rate-limiters.js";
import { createAuthInterceptor } from "../auth/auth-interceptor.js";
import type { Authenticator } from "../auth/authenticate.js";
import { createRateLimitInterceptor } from "../auth/rate-limit-interceptor.js";
import { createRouteHeaderInterceptor } from "../auth/route-header-interceptor.js";
import { createErrorInterceptor } from "../error-interceptor.js";
import { createFailFastInterceptor } from "../fail-fast-interceptor.js";
import { createMetricsInterceptor } from "../metrics-interceptor.js";
import { createValidateInterceptor } from "../validate-interceptor.js";
import type { CoreOptions } from "./core-options.js";

/** A chain for one transport: whether it believes the caller's x-client-ip, and its name in metrics. */
export type InterceptorChain = (trustClientIp: boolean, transport: "grpc" | "in_process") => Interceptor[];

/** The same chain for every transport; only whether the caller's x-client-ip is believed differs. */
export function createInterceptorChain(
  options: CoreOptions,
  authenticator: Authenticator,
  rateLimiters: RateLimiters,
): InterceptorChain {
  const { db } = options;
  const rateLimit = createRateLimitInterceptor(rateLimiters);
  return (trustClientIp, transport) => [
    createMetricsInterceptor(options.metrics, transport),
    // Outside the error interceptor: names the caller's workspace route on answers and errors alike.
    createRouteHeaderInterceptor(),
    createErrorInterceptor(options.logger),
    // Before auth: a token lookup on a frozen database would wait like any other query.
    createFailFastInterceptor(db.watchdog),
    createAuthInterceptor(authenticator, {
      trustClientIp,
      resources: { [MCP_GATEWAY]: `${options.publicUrl}${MCP_RESOURCE_PATH}` },
    }),
    // After auth (limits are per credential and plan), before validation (invalid calls count).
    rateLimit,
    createValidateInterceptor(),
  ];
}
