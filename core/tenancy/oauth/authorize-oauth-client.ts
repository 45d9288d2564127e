import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../../gen/memory/v1/errors_pb.js";
import type { TenantCaller } from "../../auth/caller.js";
import type { Scope } from "../../auth/principal.js";
import { generateSecret, hashSecret } from "../../auth/token-format.js";
import { coreError, planGateError, unauthenticated } from "../../errors.js";
import { plansWith } from "../../plans/plans.js";
import { upgradeUrl } from "../../plans/upgrade-url.js";
import type { Database } from "../../store/database.js";
import { recordAudit } from "../../store/record-audit.js";
import { MAX_ACTIVE_TOKENS } from "../api-tokens.js";
import { type ClientMetadataDocuments, clientForAuthorization } from "./client-metadata-documents.js";
import {
  CODE_TTL_SECONDS,
  mcpResource,
  oauthRejected,
  S256_CHALLENGE_PATTERN,
  sameResource,
} from "./oauth-rules.js";

export interface AuthorizeInput {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly redirectUriGiven: boolean;
  readonly scopes: readonly Scope[];
  readonly codeChallenge: string;
  readonly codeChallengeMethod: string;
  readonly resource: string | undefined;
  readonly ip: string | undefined;
}

/**
 * The consent of a signed-in member: checks the request once more (the edge has shown it to the
 * user) and issues a single-use code valid 10 minutes, bound to the client, redirect URI, PKCE
 * challenge, resource, workspace, user and the consented scopes. Only the code's SHA-256 is stored.
 * An OAuth connection is an API token of the workspace, so it needs the plan that has them.
 */
export async function authorizeOAuthClient(
  deps: { db: Database; publicUrl: string; clientMetadataDocuments: ClientMetadataDocuments },
  caller: TenantCaller,
  input: AuthorizeInput,
): Promise<{ code: string; expiresInSeconds: number }> {
  if (caller.userId === undefined) throw unauthenticated("consent needs a signed-in member");
  const client = await clientForAuthorization(deps, input.clientId);
  if (!client) throw oauthRejected("invalid_client", "unknown client_id");
  if (!client.redirect_uris.includes(input.redirectUri)) {
    throw oauthRejected("invalid_request", "redirect_uri is not registered for this client");
  }
  if (input.codeChallengeMethod !== "S256") {
    throw oauthRejected("invalid_request", "PKCE is required: code_challenge_method must be S256");
  }
  if (!S256_CHALLENGE_PATTERN.test(input.codeChallenge)) {
    throw oauthRejected(
      "invalid_request",
      "code_challenge must be the 43-character base64url S256 challenge",
    );
  }
  if (input.scopes.length === 0) throw oauthRejected("invalid_scope", "choose at least one scope");
  const outside = input.scopes.find((s) => !client.scopes.includes(s));
  if (outside !== undefined) {
    throw oauthRejected("invalid_scope", `scope '${outside}' is not allowed for this client`);
  }
  const resource = mcpResource(deps.publicUrl);
  if (input.resource !== undefined && !sameResource(input.resource, resource)) {
    throw oauthRejected("invalid_target", `this server issues tokens only for the resource ${resource}`);
  }
  if (!caller.limits.features.has("api_tokens")) {
    throw planGateError({
      feature: "api_tokens",
      currentPlan: caller.plan,
      requiredPlans: plansWith("api_tokens"),
      message: "Connecting an assistant with OAuth creates an API token; API tokens need the api plan",
      upgradeUrl: upgradeUrl(deps.publicUrl),
    });
  }
  const code = generateSecret();
  await deps.db.withTenant(caller.tenantId, async (tx) => {
    // The connection this consent would replace (same client, same user) does not count.
    const [count] = await tx<{ n: number }[]>`
      select count(*)::int as n from api_tokens
      where tenant_id = ${caller.tenantId} and revoked_at is null
        and not (kind = 'oauth' and oauth_client_id = ${client.id} and created_by = ${caller.userId ?? null})`;
    if ((count?.n ?? 0) >= MAX_ACTIVE_TOKENS) {
      throw coreError(
        Code.FailedPrecondition,
        ErrorReason.CONFLICT,
        `a workspace can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`,
        { metadata: { limit: String(MAX_ACTIVE_TOKENS) } },
      );
    }
    await tx`
      insert into oauth_codes (tenant_id, code_hash, client_id, user_id, redirect_uri, redirect_uri_given,
                               scopes, code_challenge, resource, expires_at)
      values (${caller.tenantId}, ${hashSecret(code)}, ${client.id}, ${caller.userId ?? null},
              ${input.redirectUri}, ${input.redirectUriGiven}, ${[...input.scopes]}, ${input.codeChallenge},
              ${resource}, now() + make_interval(secs => ${CODE_TTL_SECONDS}))`;
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      action: "oauth.authorized",
      target: client.id,
      ip: input.ip,
      // A metadata-document client is named by its URL too: its name is whatever the document says.
      details: {
        client: client.client_name,
        scopes: [...input.scopes],
        ...(client.metadata_url === null ? {} : { client_id: client.metadata_url }),
      },
    });
  });
  return { code, expiresInSeconds: CODE_TTL_SECONDS };
}
