import type { Interceptor } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { GATEWAY_HEADER, MCP_GATEWAY } from "../../lib/gateway-metadata.js";
import { coreError, permissionDenied, unauthenticated } from "../errors.js";
import type { Authenticator } from "./authenticate.js";
import { METHOD_REQUIREMENTS, type Requirement } from "./method-requirements.js";
import { clientIpKey, type Principal, principalKey, type Scope } from "./principal.js";
import { readSessionCookie } from "./session-cookie.js";

/** Throws unless `principal` satisfies `requirement`. */
export function enforceRequirement(
  requirement: Requirement,
  principal: Principal,
  method: string,
  /** False where sessions are refused (the MCP gateway): the 401 then asks for a token only. */
  sessionsAccepted = true,
): void {
  if (requirement.kind === "public") return;
  if (principal.kind === "anonymous") {
    throw unauthenticated(
      sessionsAccepted
        ? "missing credentials: send 'Authorization: Bearer <token>' or sign in"
        : "missing credentials: send 'Authorization: Bearer <token>'",
    );
  }
  if (requirement.kind === "any") return;
  if (requirement.kind === "session" || requirement.kind === "session-tenant") {
    if (principal.kind !== "session")
      throw unauthenticated(`${method} needs a signed-in session, not an API token`);
  }
  if (requirement.kind === "session") return;
  if (principal.tenantId === undefined) {
    throw coreError(
      Code.PermissionDenied,
      ErrorReason.ONBOARDING_REQUIRED,
      "create your workspace first (onboarding)",
    );
  }
  if (requirement.kind === "tenant" && !principal.scopes.has(requirement.scope)) {
    throw missingScope(requirement.scope, principal);
  }
}

/**
 * PERMISSION_DENIED for a scope the credential lacks. The metadata says which scope is needed and
 * which are granted, and whether the credential is an OAuth access token — whose client can ask the
 * user for more (MCP authorization 2025-11-25 "Scope Challenge Handling": the MCP gateway answers
 * such a refusal 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`).
 */
function missingScope(scope: Scope, principal: Exclude<Principal, { kind: "anonymous" }>) {
  return coreError(
    Code.PermissionDenied,
    ErrorReason.PERMISSION_DENIED,
    `this call needs the '${scope}' scope, which the token lacks`,
    {
      metadata: {
        required_scope: scope,
        granted_scopes: [...principal.scopes].join(" "),
        ...(principal.kind === "token" && principal.audience !== undefined ? { credential: "oauth" } : {}),
      },
    },
  );
}

/**
 * Probes authenticate within their own deadline: the token lookup reads the database once its
 * cache entry expires, and a hung database must show as a fast "unavailable" (REST 503, MCP -32006)
 * rather than the 30 s request deadline (issue 15). The status check itself bounds each component.
 */
const PROBE_AUTH_DEADLINE_MS: Readonly<Record<string, number>> = {
  "memory.v1.StatusService/GetStatus": 1800,
};

async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          coreError(
            Code.Unavailable,
            ErrorReason.UNAVAILABLE,
            `the database is unavailable: credentials could not be checked within ${ms} ms; retry shortly`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Authenticates every call from metadata (Bearer token, or the session token the gateways forward
 * as x-session-token / a browser sends as cookie) and checks the method's requirement from the one
 * table. Direct gRPC clients get exactly the same checks as the gateways.
 */
export function createAuthInterceptor(
  authenticator: Authenticator,
  options: {
    trustClientIp: boolean;
    /**
     * The resource each gateway serves, by its GATEWAY_HEADER value (MCP: `${PUBLIC_URL}/api/mcp/v1`).
     * An OAuth access token is accepted only on calls a trusted gateway marks as its audience, so a
     * token issued for the MCP endpoint is refused on REST and on direct gRPC (RFC 8707, MCP
     * authorization "Token Audience Binding and Validation").
     */
    resources?: Readonly<Record<string, string>>;
  },
): Interceptor {
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const requirement = METHOD_REQUIREMENTS[method];
    if (!requirement) throw permissionDenied(`${method} is not available`);
    if (options.trustClientIp) {
      const ip = req.header.get("x-client-ip");
      if (ip) req.contextValues.set(clientIpKey, ip);
    }
    if (requirement.kind !== "public") {
      const resolving = authenticator.resolve({
        authorization: req.header.get("authorization"),
        sessionToken: req.header.get("x-session-token") ?? readSessionCookie(req.header.get("cookie")),
      });
      const deadline = PROBE_AUTH_DEADLINE_MS[method];
      const principal = await (deadline === undefined ? resolving : withinDeadline(resolving, deadline));
      if (principal.kind === "token" && principal.audience !== undefined) {
        const gateway = options.trustClientIp ? req.header.get(GATEWAY_HEADER) : null;
        const resource = gateway ? options.resources?.[gateway] : undefined;
        if (resource !== principal.audience) {
          throw unauthenticated(
            `this access token was issued for ${principal.audience}, not for this endpoint`,
          );
        }
      }
      enforceRequirement(requirement, principal, method, req.header.get(GATEWAY_HEADER) !== MCP_GATEWAY);
      req.contextValues.set(principalKey, principal);
    }
    return next(req);
  };
}
