import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ROUTE_HEADER, tenantRoute } from "../../lib/gateway-metadata.js";
import { principalKey } from "./principal.js";

/**
 * Names the caller's workspace route (ROUTE_HEADER, a hash of the tenant id) on every answer to a
 * call authenticated to a workspace, errors included, so a gateway in front of several cores learns
 * which workspace a credential belongs to and sends its later calls — and those of the workspace's
 * other credentials — to the workspace's core (ADR 0380). Placed outside the error interceptor: it
 * reads the principal the auth interceptor set once the call is done, and every error it sees is
 * already a ConnectError.
 */
export function createRouteHeaderInterceptor(): Interceptor {
  return (next) => async (req) => {
    const routeOfCaller = (): string | undefined => {
      const principal = req.contextValues.get(principalKey);
      return principal.kind !== "anonymous" && principal.tenantId !== undefined
        ? tenantRoute(principal.tenantId)
        : undefined;
    };
    try {
      const res = await next(req);
      const route = routeOfCaller();
      if (route !== undefined) res.header.set(ROUTE_HEADER, route);
      return res;
    } catch (error) {
      const route = routeOfCaller();
      if (route !== undefined && error instanceof ConnectError) error.metadata.set(ROUTE_HEADER, route);
      throw error;
    }
  };
}
