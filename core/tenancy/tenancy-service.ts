import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import { type TenancyService, TokenKind } from "../../gen/memory/v1/tenancy_service_pb.js";
import type { Authenticator } from "../auth/authenticate.js";
import { tenantCaller } from "../auth/caller.js";
import { clientIpKey, type PlanName, principalKey } from "../auth/principal.js";
import { unauthenticated } from "../errors.js";
import type { ProviderKeyDeps } from "../keys/byok-guards.js";
import { createProviderKey } from "../keys/create-provider-key.js";
import { deleteProviderKey } from "../keys/delete-provider-key.js";
import { maskKey } from "../keys/key-cipher.js";
import { listProviderKeys } from "../keys/list-provider-keys.js";
import { getModelSelection, type ModelSelection, updateModelSelection } from "../keys/model-selection.js";
import type { ProviderKeyRecord } from "../keys/provider-key-rows.js";
import { testProviderKey } from "../keys/test-provider-key.js";
import type { Database } from "../store/database.js";
import { listActiveTokens } from "./api-tokens.js";
import { completeSignIn } from "./complete-sign-in.js";
import { createToken } from "./create-token.js";
import { exportAudit } from "./export-audit.js";
import { exportTenant } from "./export-tenant.js";
import { sessionOf } from "./get-session.js";
import type { MagicLinkMailer } from "./magic-link-mailer.js";
import { authorizeOAuthClient } from "./oauth/authorize-oauth-client.js";
import { type ClientMetadataDocuments, clientForAuthorization } from "./oauth/client-metadata-documents.js";
import { exchangeOAuthGrant } from "./oauth/exchange-oauth-grant.js";
import { oauthClientMessage } from "./oauth/oauth-client-message.js";
import { oauthRejected } from "./oauth/oauth-rules.js";
import { registerOAuthClient } from "./oauth/register-oauth-client.js";
import { revokeOAuthToken } from "./oauth/revoke-oauth-token.js";
import { onboard, type StartCheckout } from "./onboard.js";
import { planEnum, planName, scopeEnum, scopeName } from "./proto-enums.js";
import { revokeToken } from "./revoke-token.js";
import { signOut } from "./sign-out.js";
import { startSignIn } from "./start-sign-in.js";

export interface TenancyServiceDeps {
  readonly db: Database;
  readonly authenticator: Authenticator;
  readonly mailer: MagicLinkMailer;
  readonly publicUrl: string;
  readonly logger: Logger;
  /** Set by billing when payments are configured; unset: paid plans at onboarding answer 402. */
  readonly startCheckout?: StartCheckout | undefined;
  /** SELF_HOSTED_PLAN: onboarding grants this plan without payment. */
  readonly selfHostedPlan?: PlanName | undefined;
  /** Provider keys (BYOK): master key, URL policy and the per-workspace model resolver. */
  readonly keys: Omit<ProviderKeyDeps, "db" | "publicUrl" | "logger">;
  /** OAuth clients named by the URL of a client ID metadata document (ADR 0400). */
  readonly clientMetadataDocuments: ClientMetadataDocuments;
}

function keyMessage(record: ProviderKeyRecord, usedFor: readonly string[]) {
  return {
    id: record.id,
    provider: record.provider,
    label: record.label,
    maskedKey: maskKey(record.last4),
    ...(record.baseUrl === null ? {} : { baseUrl: record.baseUrl }),
    createdAt: timestampFromDate(record.createdAt),
    ...(record.lastTestedAt ? { lastTestedAt: timestampFromDate(record.lastTestedAt) } : {}),
    ...(record.lastTestOk === null ? {} : { lastTestOk: record.lastTestOk }),
    model: record.model,
    dimension: record.dimension,
    ...(record.lastUsedAt ? { lastUsedAt: timestampFromDate(record.lastUsedAt) } : {}),
    ...(record.lastTestError === null ? {} : { lastTestError: record.lastTestError }),
    usedFor: [...usedFor],
  };
}

function selectionMessage(selection: ModelSelection) {
  return {
    ...(selection.embeddingKeyId ? { embeddingKeyId: selection.embeddingKeyId } : {}),
    ...(selection.rerankKeyId ? { rerankKeyId: selection.rerankKeyId } : {}),
    activeEmbeddingSpace: selection.activeEmbeddingSpace,
    ...(selection.reembed ? { reembed: selection.reembed } : {}),
  };
}

const clientIp = (ctx: HandlerContext) => ctx.values.get(clientIpKey);

/** The export streams' byte chunks as response messages. */
async function* asChunks(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<{ chunk: Uint8Array }> {
  for await (const chunk of bytes) yield { chunk };
}

/**
 * TenancyService: sessions (magic links), onboarding, API tokens and the exports, one use case per
 * file. The auth interceptor has enforced each method's requirement (method-requirements.ts) before
 * a handler runs. Provider keys (BYOK) and the workspace's model selection live here too.
 */
export function createTenancyService(deps: TenancyServiceDeps): Partial<ServiceImpl<typeof TenancyService>> {
  const keyDeps: ProviderKeyDeps = {
    ...deps.keys,
    db: deps.db,
    publicUrl: deps.publicUrl,
    logger: deps.logger,
  };
  return {
    async startSignIn(req) {
      await startSignIn(deps, { email: req.email, baseUrl: req.baseUrl, callbackPath: req.callbackPath });
      return {};
    },

    async completeSignIn(req, ctx) {
      const done = await completeSignIn(deps, { token: req.token, ip: clientIp(ctx) });
      return {
        sessionToken: done.sessionToken,
        expiresAt: timestampFromDate(done.expiresAt),
        userId: done.userId,
        email: done.email,
        needsOnboarding: done.needsOnboarding,
        ...(done.tenantId ? { tenantId: done.tenantId } : {}),
        redirectPath: done.redirectPath,
      };
    },

    async signOut(_req, ctx) {
      const principal = ctx.values.get(principalKey);
      if (principal.kind !== "session") throw unauthenticated("sign-out needs a signed-in session");
      await signOut(deps, {
        sessionId: principal.sessionId,
        userId: principal.userId,
        tenantId: principal.tenantId,
        ip: clientIp(ctx),
      });
      return {};
    },

    async getSession(_req, ctx) {
      const { plan, scopes, ...session } = sessionOf(ctx.values.get(principalKey));
      return { ...session, ...(plan ? { plan: planEnum(plan) } : {}), scopes: scopes.map(scopeEnum) };
    },

    async onboard(req, ctx) {
      const principal = ctx.values.get(principalKey);
      if (principal.kind !== "session") throw unauthenticated("onboarding needs a signed-in session");
      return onboard(deps, {
        userId: principal.userId,
        email: principal.email,
        slug: req.slug,
        name: req.name.trim(),
        plan: planName(req.plan),
        ip: clientIp(ctx),
      });
    },

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
        ip: clientIp(ctx),
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
      await revokeToken(deps, tenantCaller(ctx), { tokenId: req.id, ip: clientIp(ctx) });
      return {};
    },

    async listProviderKeys(_req, ctx) {
      const keys = await listProviderKeys(deps, tenantCaller(ctx));
      return { keys: keys.map(({ record, usedFor }) => keyMessage(record, usedFor)) };
    },

    async createProviderKey(req, ctx) {
      const record = await createProviderKey(keyDeps, tenantCaller(ctx), {
        provider: req.provider,
        label: req.label,
        apiKey: req.apiKey,
        baseUrl: req.baseUrl,
        model: req.model,
        ip: clientIp(ctx),
      });
      return { key: keyMessage(record, []) };
    },

    async testProviderKey(req, ctx) {
      const result = await testProviderKey(keyDeps, tenantCaller(ctx), req.id);
      return {
        ok: result.ok,
        latencyMs: result.latencyMs,
        message: result.ok ? `ok: ${result.dimension} dimensions` : (result.error ?? "failed"),
        dimension: result.dimension,
        model: result.model,
        ...(result.error === undefined ? {} : { error: result.error }),
      };
    },

    async deleteProviderKey(req, ctx) {
      await deleteProviderKey(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx) });
      return { deleted: true };
    },

    async getModelSelection(_req, ctx) {
      return { selection: selectionMessage(await getModelSelection(keyDeps, tenantCaller(ctx))) };
    },

    async updateModelSelection(req, ctx) {
      const selection = await updateModelSelection(keyDeps, tenantCaller(ctx), {
        embeddingKeyId: req.embeddingKeyId,
        rerankKeyId: req.rerankKeyId,
        ip: clientIp(ctx),
      });
      return { selection: selectionMessage(selection) };
    },

    // Not generators: the caller check and the plan gate throw before the stream starts, so the
    // error interceptor and the gateways see them as a plain refusal (402, 401), not a cut stream.
    exportAudit(_req, ctx) {
      return asChunks(exportAudit(deps, tenantCaller(ctx), { ip: clientIp(ctx), signal: ctx.signal }));
    },

    exportTenant(_req, ctx) {
      return asChunks(exportTenant(deps, tenantCaller(ctx), { ip: clientIp(ctx), signal: ctx.signal }));
    },

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
        ip: clientIp(ctx),
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
        ip: clientIp(ctx),
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
        ip: clientIp(ctx),
      });
      return {};
    },
  };
}
