import type { FastifyInstance } from "fastify";
import { clientCredentials } from "../oauth-client-auth.js";
import { type OAuthRouteContext, publicCall } from "../oauth-context.js";
import { doc, OAUTH_PATHS } from "../oauth-metadata.js";
import { BODY_LIMIT_BYTES, required, requireForm } from "../oauth-params.js";
import { openCors, sendOAuthError } from "../oauth-replies.js";

/** POST /api/oauth/revoke (RFC 7009): 200 for any token, known or not. */
export function registerRevokeToken(app: FastifyInstance, context: OAuthRouteContext): void {
  app.post(
    OAUTH_PATHS.revoke,
    {
      bodyLimit: BODY_LIMIT_BYTES,
      config: { ipRateLimit: "oauthToken" },
      schema: doc(
        "RFC 7009 revocation (form-encoded token + client authentication): ends the whole connection; 200 also for unknown tokens",
      ),
    },
    async (request, reply) => {
      let basic = false;
      try {
        const form = requireForm(request);
        const credentials = clientCredentials(request, form);
        basic = credentials.basic;
        await context.tenancy.revokeOAuthToken(
          {
            clientId: credentials.clientId,
            ...(credentials.clientSecret === undefined ? {} : { clientSecret: credentials.clientSecret }),
            token: required(form, "token"),
          },
          publicCall(context, request),
        );
        return openCors(reply).header("cache-control", "no-store").code(200).send();
      } catch (error) {
        return sendOAuthError(request, reply, error, basic);
      }
    },
  );
}
