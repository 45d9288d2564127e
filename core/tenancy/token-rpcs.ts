import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TokenKind } from "../../gen/memory/v1/tenancy_service_pb.js";
import { clientIpOf, tenantCaller } from "../auth/caller.js";
import { listActiveTokens } from "./api-tokens.js";
import { createToken } from "./create-token.js";
import { scopeEnum, scopeName } from "./proto-enums.js";
import { revokeToken } from "./revoke-token.js";
import type { TenancyHandlers, TenancyServiceDeps } from "./tenancy-deps.js";

/** The workspace's API tokens (and the OAuth tokens it granted): listed, created, revoked. */
export function tokenRpcs(
  deps: TenancyServiceDeps,
): TenancyHandlers<"listTokens" | "createToken" | "revokeToken"> {
  return {
    async listTokens(_req, ctx) {
      const caller = tenantCaller(ctx);
      const tokens = await deps.db.withTenant(caller.tenantId, (tx) => listActiveTokens(tx, caller.tenantId));
      return {
        tokens: tokens.map((t) => ({
          id: t.id,
          name: t.name,
          kind: t.kind === "oauth" ? TokenKind.OAUTH : TokenKind.API,
          ...(t.oauthClientId ? { oauthClientId: t.oauthClientId } : {}),
          scopes: t.scopes.map(scopeEnum),
          createdAt: timestampFromDate(t.createdAt),
          ...(t.lastUsedAt ? { lastUsedAt: timestampFromDate(t.lastUsedAt) } : {}),
        })),
      };
    },

    async createToken(req, ctx) {
      const issued = await createToken(deps, tenantCaller(ctx), {
        name: req.name.trim(),
        scopes: req.scopes.map(scopeName),
        ip: clientIpOf(ctx),
      });
      return {
        id: issued.id,
        token: issued.token,
        info: {
          id: issued.id,
          name: issued.name,
          scopes: issued.scopes.map(scopeEnum),
          createdAt: timestampFromDate(issued.createdAt),
        },
      };
    },

    async revokeToken(req, ctx) {
      await revokeToken(deps, tenantCaller(ctx), { tokenId: req.id, ip: clientIpOf(ctx) });
      return {};
    },
  };
}
