import { Code } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { readErrorDetails } from "../../gateway-kit/error-details.js";
import { ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { isCsrfTokenOf } from "../../lib/csrf-token.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import {
  type ClientAndRedirect,
  checkAuthorizationRequest,
  checkClientAndRedirect,
  RedirectableError,
} from "../authorization-request.js";
import { type OAuthRouteContext, sessionCall } from "../oauth-context.js";
import { OAuthRequestError } from "../oauth-errors.js";
import { doc, OAUTH_PATHS } from "../oauth-metadata.js";
import { errorPage, type Language, pickLanguage } from "../oauth-pages.js";
import { type Params, paramsOf, single } from "../oauth-params.js";
import { redirectBack, sendPage, showError } from "../oauth-replies.js";

/**
 * POST /api/oauth/authorize: the consent form. SameSite=Lax keeps the session cookie off cross-site
 * POSTs; the Origin and Fetch-Metadata checks refuse them outright, and the form must carry the
 * session's anti-CSRF token. `Origin: null` (a browser that hides the origin, e.g. under a
 * no-referrer policy) is accepted only with that token and a same-origin Sec-Fetch-Site, where one
 * is sent. Then the request is checked once more and core issues the code → 303 to the client.
 */
export function registerConsent(app: FastifyInstance, context: OAuthRouteContext): void {
  const publicOrigin = new URL(context.publicUrl).origin;
  app.post(
    OAUTH_PATHS.authorize,
    {
      config: { ipRateLimit: "oauth" },
      schema: doc(
        "The consent form (session cookie, same origin): decision=allow|deny and the scopes kept; 303 to redirect_uri with code, state and iss (or error=access_denied)",
      ),
    },
    async (request, reply) => {
      const form = paramsOf(request.body);
      const lang = pickLanguage(form.lang?.[0], request.headers["accept-language"]);
      if (isCrossSite(request, form, publicOrigin)) {
        const refusal = new OAuthRequestError("access_denied", "cross-site consent refused", 403);
        return showError(request, reply, lang, refusal);
      }
      let phase1: ClientAndRedirect;
      let state: string | undefined;
      try {
        state = single(form, "state");
        // The consent form always names the redirect URI; redirect_uri_given says whether the client did.
        phase1 = {
          ...(await checkClientAndRedirect(context, request, form)),
          redirectUriGiven: single(form, "redirect_uri_given") === "1",
        };
      } catch (error) {
        return showError(request, reply, lang, error);
      }
      const back = (values: Record<string, string | undefined>) =>
        redirectBack(reply, context.publicUrl, phase1.redirectUri, { ...values, state });
      try {
        return back({ code: await issueCode(context, request, phase1, form, state) });
      } catch (error) {
        return answerRefusal(request, reply, lang, error, back);
      }
    },
  );
}

/** A consent that did not come from our own page in the member's browser. */
function isCrossSite(request: FastifyRequest, form: Params, publicOrigin: string): boolean {
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  const session = request.cookies[SESSION_COOKIE];
  return (
    (origin !== undefined && origin !== publicOrigin && origin !== "null") ||
    (site !== undefined && site !== "same-origin") ||
    (session !== undefined && !isCsrfTokenOf(single(form, "csrf_token"), session))
  );
}

class ConsentDenied extends RedirectableError {
  constructor() {
    super("access_denied", "the user denied access");
  }
}

/** The user's decision → core's single-use code, bound to everything the user saw. */
async function issueCode(
  context: OAuthRouteContext,
  request: FastifyRequest,
  phase1: ClientAndRedirect,
  form: Params,
  state: string | undefined,
): Promise<string> {
  // The form repeats the request with the requested scopes in requested_scope; `scope` holds the
  // boxes the user left ticked, which may only narrow them.
  const requestedScope = single(form, "requested_scope");
  const authorization = checkAuthorizationRequest(
    context.publicUrl,
    phase1,
    { ...form, scope: requestedScope === undefined ? [] : [requestedScope] },
    state,
  );
  const chosen = (form.scope ?? []).filter((s) => authorization.scopes.includes(s));
  if (single(form, "decision") !== "allow" || chosen.length === 0) throw new ConsentDenied();
  const { code } = await context.tenancy.authorizeOAuthClient(
    {
      clientId: authorization.client.clientId,
      redirectUri: authorization.redirectUri,
      redirectUriGiven: authorization.redirectUriGiven,
      scopes: chosen.map((s) => enumNumber(ScopeSchema, s)),
      codeChallenge: authorization.codeChallenge,
      codeChallengeMethod: "S256",
      ...(authorization.resource === undefined ? {} : { resource: authorization.resource }),
    },
    sessionCall(context, request),
  );
  return code;
}

/**
 * A refused consent: the client's own problems go back to it; what the user has to act on (signed
 * out, plan gate, token cap) is shown to the user.
 */
function answerRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  lang: Language,
  error: unknown,
  back: (values: Record<string, string | undefined>) => FastifyReply,
): FastifyReply {
  if (error instanceof RedirectableError || error instanceof OAuthRequestError) {
    return back({ error: error.error, error_description: error.message });
  }
  const details = readErrorDetails(error);
  const oauthCode = details.metadata.oauth_error;
  if (oauthCode !== undefined && oauthCode !== "invalid_client") {
    return back({ error: oauthCode, error_description: details.message });
  }
  if (details.code === Code.Unauthenticated) {
    return sendPage(reply, 401, errorPage(lang, "login_required", details.message));
  }
  if (details.planGate !== undefined || details.code === Code.FailedPrecondition) {
    return sendPage(reply, details.planGate ? 402 : 409, errorPage(lang, "access_denied", details.message));
  }
  return showError(request, reply, lang, error);
}
