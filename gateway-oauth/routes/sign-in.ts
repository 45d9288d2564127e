import type { FastifyInstance } from "fastify";
import { type OAuthRouteContext, publicCall } from "../oauth-context.js";
import { OAuthRequestError } from "../oauth-errors.js";
import { doc, OAUTH_PATHS } from "../oauth-metadata.js";
import { linkSentPage, pickLanguage } from "../oauth-pages.js";
import { paramsOf, required } from "../oauth-params.js";
import { sendPage, showError } from "../oauth-replies.js";

/**
 * POST /api/oauth/signin: sign-in from the authorization page. Mails a magic link that returns to
 * the authorization request; counts against the per-IP sign-in limit (5 / 60 s) like
 * /api/auth/signin/*.
 */
export function registerSignIn(app: FastifyInstance, context: OAuthRouteContext): void {
  app.post(
    OAUTH_PATHS.signIn,
    {
      config: { ipRateLimit: "signin" },
      schema: doc(
        "Sign-in from the authorization page (form: email, return_to): mails a magic link that returns to the authorization request; shares the 5 / 60 s per-IP sign-in budget",
      ),
    },
    async (request, reply) => {
      const form = paramsOf(request.body);
      const lang = pickLanguage(form.lang?.[0], request.headers["accept-language"]);
      try {
        const email = required(form, "email");
        const returnTo = required(form, "return_to");
        if (!returnTo.startsWith(`${OAUTH_PATHS.authorize}?`)) {
          throw new OAuthRequestError("invalid_request", "return_to must be the authorization request");
        }
        await context.tenancy.startSignIn(
          { email, baseUrl: context.publicUrl, callbackPath: returnTo },
          publicCall(context, request),
        );
        return sendPage(reply, 200, linkSentPage(lang, email));
      } catch (error) {
        return showError(request, reply, lang, error);
      }
    },
  );
}
