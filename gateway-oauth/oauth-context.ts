import type { CallOptions } from "@connectrpc/connect";
import type { FastifyRequest } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { forwardedHeaders } from "../gateway-kit/credentials.js";

/** What every route of the authorization server needs: core's TenancyService and PUBLIC_URL. */
export interface OAuthRouteContext {
  readonly tenancy: CoreClients["tenancy"];
  /** PUBLIC_URL: the issuer, and the base of the resource and of every link. */
  readonly publicUrl: string;
  readonly coreTimeoutMs: number;
}

/** A core call on behalf of no one: the client authenticates inside the request (token, revoke, register). */
export const publicCall = (context: OAuthRouteContext, request: FastifyRequest): CallOptions => ({
  headers: forwardedHeaders(request, "none"),
  timeoutMs: context.coreTimeoutMs,
});

/** A core call as the browser's signed-in member (authorize, consent). */
export const sessionCall = (context: OAuthRouteContext, request: FastifyRequest): CallOptions => ({
  headers: forwardedHeaders(request, "session"),
  timeoutMs: context.coreTimeoutMs,
});
