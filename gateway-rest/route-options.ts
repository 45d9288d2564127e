import { type CallOptions, Code, ConnectError } from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { forwardedHeaders, type RouteAuth, SESSION_COOKIE } from "../gateway-kit/credentials.js";
import { writeKeyHeaders } from "./write-retry-key.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Status for a request failing its schema: 400 unless the spec says otherwise (422). */
    validationStatus?: number;
  }
  interface FastifySchema {
    /** The spec's Auth column for this route: Bearer, Session, Both or None. */
    "x-auth"?: string;
    /** The core RPC the route translates to ("memory.v1.RecallService/Recall"). */
    "x-core-rpc"?: string;
  }
}

/** Unversioned paths follow the spec's table; /api/v1 is the bearer surface for integrations. */
export type RestSurface = "unversioned" | "v1";

/**
 * What every route plugin gets: the core clients, the credentials it accepts (the spec's Auth
 * column for unversioned paths, "bearer" under /api/v1), which surface it is mounted on, and the
 * deadline of a core call.
 */
export interface RestRouteOptions {
  readonly clients: CoreClients;
  readonly auth: RouteAuth;
  readonly surface: RestSurface;
  /** After this, the core call is abandoned with DEADLINE_EXCEEDED → 504 (spec "HTTP status codes"). */
  readonly coreTimeoutMs: number;
  /** PUBLIC_URL: the base of return addresses core builds (checkout, portal, sign-in links). */
  readonly publicUrl: string;
}

/**
 * The 401 for a request without the kind of credential its route takes, or undefined. A caller
 * who sent only the kind the route does not take is told which kind it wants, instead of core's
 * "missing credentials" (core never sees the credential the gateway did not forward).
 */
export function credentialError(request: FastifyRequest, auth: RouteAuth): ConnectError | undefined {
  if (auth === "none") return undefined;
  const hasBearer = request.headers.authorization !== undefined;
  const hasSession = request.cookies[SESSION_COOKIE] !== undefined;
  if (auth === "session" && hasBearer && !hasSession) {
    return new ConnectError(
      "this route needs a signed-in session (cookie service.session-token); API tokens are not accepted here",
      Code.Unauthenticated,
    );
  }
  if (auth === "bearer" && hasSession && !hasBearer) {
    return new ConnectError(
      "this route needs an API token ('Authorization: Bearer <token>'); session cookies are not accepted here",
      Code.Unauthenticated,
    );
  }
  if (!hasBearer && !hasSession) {
    const wanted =
      auth === "bearer"
        ? "an API token ('Authorization: Bearer <token>')"
        : auth === "session"
          ? "a signed-in session (cookie service.session-token)"
          : "an API token ('Authorization: Bearer <token>') or a signed-in session";
    return new ConnectError(`missing credentials: this route needs ${wanted}`, Code.Unauthenticated);
  }
  return undefined;
}

/**
 * Credentials before the body (issue 15): a request without the right kind of credential is 401
 * whatever its body, so an unauthenticated caller learns nothing from validation messages. Added
 * once per route plugin as a preValidation hook (rest-gateway.ts).
 */
export function requireCredentialKind(auth: RouteAuth): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const error = credentialError(request, auth);
    if (error) throw error;
  };
}

/** Options for one core call: only the accepted credentials, the request id, the deadline. */
export function coreCall(request: FastifyRequest, options: RestRouteOptions): CallOptions {
  const error = credentialError(request, options.auth);
  if (error) throw error;
  const headers = forwardedHeaders(request, options.auth);
  // Idempotency-Key on writes (issue 15): core keeps the first answer for 24 h and replays it; an
  // unkeyed write gets a key of ours that core claims only if it runs long (write-retry-key.ts).
  return { headers: { ...headers, ...writeKeyHeaders(request) }, timeoutMs: options.coreTimeoutMs };
}

/**
 * Options for a streaming core call (exports): like coreCall but without the deadline, which would
 * cut a large export short; the call ends when the client goes away. Ending the body stream is not
 * enough for that: the in-process transport does not pass the iterator's return() on to core's
 * handler, which would keep reading (and hold its database transaction) until the process stops.
 * An aborted signal does reach it, so the call is aborted when the response closes (a no-op once
 * the export has completed).
 */
export function coreStreamCall(
  request: FastifyRequest,
  reply: FastifyReply,
  options: RestRouteOptions,
): CallOptions {
  const { timeoutMs: _none, ...call } = coreCall(request, options);
  const cancel = new AbortController();
  reply.raw.once("close", () => cancel.abort());
  return { ...call, signal: cancel.signal };
}

/** Security requirement of a route in the OpenAPI document; "both" means either scheme. */
export function securityFor(auth: RouteAuth): Record<string, string[]>[] {
  switch (auth) {
    case "bearer":
      return [{ bearer: [] }];
    case "session":
      return [{ session: [] }];
    case "both":
      return [{ bearer: [] }, { session: [] }];
    case "none":
      return [];
  }
}

const AUTH_LABEL: Readonly<Record<RouteAuth, string>> = {
  bearer: "Bearer",
  session: "Session",
  both: "Both",
  none: "None",
};

/**
 * The documentation part of a route schema: a unique operationId per surface, tags, security and
 * the `x-auth` / `x-core-rpc` extensions the contract test reads.
 */
export function describeOperation(
  options: Pick<RestRouteOptions, "auth" | "surface">,
  operation: { id: string; summary: string; description?: string; tag: string; rpc: string },
) {
  const v1 = options.surface === "v1";
  return {
    operationId: v1 ? `${operation.id}V1` : operation.id,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: v1 ? ["v1"] : [operation.tag],
    security: securityFor(options.auth),
    "x-auth": AUTH_LABEL[options.auth],
    "x-core-rpc": operation.rpc,
  };
}
