import { clientIpOf, tenantCaller } from "../auth/caller.js";
import { authorizeOAuthClient } from "./oauth/authorize-oauth-client.js";
import { clientForAuthorization } from "./oauth/client-metadata-documents.js";
import { exchangeOAuthGrant } from "./oauth/exchange-oauth-grant.js";
import { oauthClientMessage } from "./oauth/oauth-client-message.js";
import { oauthRejected } from "./oauth/oauth-rules.js";
import { registerOAuthClient } from "./oauth/register-oauth-client.js";
import { revokeOAuthToken } from "./oauth/revoke-oauth-token.js";
import { scopeEnum, scopeName } from "./proto-enums.js";
import type { TenancyHandlers, TenancyServiceDeps } from "./tenancy-deps.js";

/** OAuth clients: registration, lookup, the user's consent, the token endpoint and revocation. */
export function oauthClientRpcs(
  deps: TenancyServiceDeps,
): TenancyHandlers<
  | "registerOAuthClient"
  | "getOAuthClient"
  | "authorizeOAuthClient"
  | "exchangeOAuthGrant"
  | "revokeOAuthToken"
> {
  return {
    async registerOAuthClient(req) {
      const { client, secret } = await registerOAuthClient(deps, {
        clientName: req.clientName,
        redirectUris: req.redirectUris,
        tokenEndpointAuthMethod: req.tokenEndpointAuthMethod,
        grantTypes: req.grantTypes,
        responseTypes: req.responseTypes,
        scope: req.scope,
        clientUri: req.clientUri,
        logoUri: req.logoUri,
        softwareId: req.softwareId,
        softwareVersion: req.softwareVersion,
      });
      return { client: oauthClientMessage(client), ...(secret ? { clientSecret: secret } : {}) };
    },

    async getOAuthClient(req) {
      const client = await clientForAuthorization(deps, req.clientId);
      if (!client) throw oauthRejected("invalid_client", "unknown client_id");
      return { client: oauthClientMessage(client) };
    },

    async authorizeOAuthClient(req, ctx) {
      return authorizeOAuthClient(deps, tenantCaller(ctx), {
        clientId: req.clientId,
        redirectUri: req.redirectUri,
        redirectUriGiven: req.redirectUriGiven,
        scopes: req.scopes.map(scopeName),
        codeChallenge: req.codeChallenge,
        codeChallengeMethod: req.codeChallengeMethod,
        resource: req.resource,
        ip: clientIpOf(ctx),
      });
    },

    async exchangeOAuthGrant(req, ctx) {
      const issued = await exchangeOAuthGrant(deps, {
        clientId: req.clientId,
        clientSecret: req.clientSecret,
        grantType: req.grantType,
        code: req.code,
        codeVerifier: req.codeVerifier,
        redirectUri: req.redirectUri,
        refreshToken: req.refreshToken,
        scopes: req.scopes.map(scopeName),
        resource: req.resource,
        ip: clientIpOf(ctx),
      });
      return {
        accessToken: issued.accessToken,
        expiresInSeconds: issued.expiresInSeconds,
        refreshToken: issued.refreshToken ?? "",
        scopes: issued.scopes.map(scopeEnum),
      };
    },

    async revokeOAuthToken(req, ctx) {
      await revokeOAuthToken(deps, {
        clientId: req.clientId,
        clientSecret: req.clientSecret,
        token: req.token,
        ip: clientIpOf(ctx),
      });
      return {};
    },
  };
}
