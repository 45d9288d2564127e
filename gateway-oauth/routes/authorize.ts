import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { forwardedHeaders, SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { csrfTokenFor } from "../../lib/csrf-token.js";
import {
  type AuthorizationRequest,
  type ClientAndRedirect,
  checkAuthorizationRequest,
  checkClientAndRedirect,
  RedirectableError,
} from "../authorization-request.js";
import { type OAuthRouteContext, sessionCall } from "../oauth-context.js";
import { OAuthRequestError } from "../oauth-errors.js";
import { doc, OAUTH_PATHS } from "../oauth-metadata.js";
import {
  clientLabel,
  consentPage,
  type Language,
  onboardingPage,
  pickLanguage,
  signInPage,
} from "../oauth-pages.js";
import { paramsOf, single } from "../oauth-params.js";
import { redirectBack, sendPage, showError } from "../oauth-replies.js";

/** MCP authorization 2025-11-25 "Localhost Redirect URI Risks": warn about loopback redirects. */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

type Session = "signed-out" | { readonly tenantSlug: string | undefined; readonly email: string | undefined };

/**
 * GET /api/oauth/authorize: the browser's first stop. The request is checked (phase 1 problems are
 * shown, phase 2 problems redirected); then no session → the sign-in page (a magic link that returns
 * here); a session without a workspace → onboarding; a session → the consent page.
 */
export function registerAuthorize(app: FastifyInstance, context: OAuthRouteContext): void {
  app.get(
    OAUTH_PATHS.authorize,
    {
      config: { ipRateLimit: "oauth" },
      schema: doc(
        "Authorization endpoint (browser): response_type=code, client_id (registered, or an https URL naming a client ID metadata document), redirect_uri, code_challenge + code_challenge_method=S256 (required), scope, state, resource. Shows sign-in (magic link) or the consent page; problems after client and redirect URI are checked go back to redirect_uri as error=… with iss; 30 / 60 s per IP",
      ),
    },
    async (request, reply) => {
      const params = paramsOf(request.query);
      const lang = pickLanguage(params.lang?.[0], request.headers["accept-language"]);
      let phase1: ClientAndRedirect;
      let state: string | undefined;
      try {
        state = single(params, "state");
        phase1 = await checkClientAndRedirect(context, request, params);
      } catch (error) {
        return showError(request, reply, lang, error);
      }
      let authorization: AuthorizationRequest;
      try {
        authorization = checkAuthorizationRequest(context.publicUrl, phase1, params, state);
      } catch (error) {
        if (error instanceof RedirectableError || error instanceof OAuthRequestError) {
          return redirectBack(reply, context.publicUrl, phase1.redirectUri, {
            error: error.error,
            error_description: error.message,
            state,
          });
        }
        throw error;
      }
      const session = await currentSession(context, request);
      if (session === "signed-out") {
        const page = signInPage(lang, {
          clientName: clientLabel(
            authorization.client.clientName,
            authorization.client.clientIdMetadataDocument
              ? new URL(authorization.client.clientId).host
              : undefined,
          ),
          action: OAUTH_PATHS.signIn,
          returnTo: request.url,
        });
        return sendPage(reply, 200, page);
      }
      if (session.tenantSlug === undefined)
        return sendPage(reply, 200, onboardingPage(lang, context.publicUrl));
      return showConsent(request, reply, lang, authorization, { ...session, tenantSlug: session.tenantSlug });
    },
  );
}

/** The consent page: the request travels on in hidden fields, with the session's anti-CSRF token. */
function showConsent(
  request: FastifyRequest,
  reply: FastifyReply,
  lang: Language,
  authorization: AuthorizationRequest,
  session: { readonly tenantSlug: string; readonly email: string | undefined },
): FastifyReply {
  const { client } = authorization;
  return sendPage(
    reply,
    200,
    consentPage(lang, {
      clientName: client.clientName,
      clientUri: client.clientUri,
      ...(client.clientIdMetadataDocument
        ? {
            metadataDocumentHost: new URL(client.clientId).host,
            loopbackRedirect: LOOPBACK.has(new URL(authorization.redirectUri).hostname),
          }
        : {}),
      workspace: session.tenantSlug,
      email: session.email ?? "",
      redirectHost: new URL(authorization.redirectUri).host,
      requested: authorization.scopes,
      action: OAUTH_PATHS.authorize,
      fields: {
        client_id: client.clientId,
        redirect_uri: authorization.redirectUri,
        redirect_uri_given: authorization.redirectUriGiven ? "1" : "0",
        ...(authorization.state === undefined ? {} : { state: authorization.state }),
        response_type: "code",
        code_challenge: authorization.codeChallenge,
        code_challenge_method: "S256",
        ...(authorization.resource === undefined ? {} : { resource: authorization.resource }),
        requested_scope: authorization.scopes.join(" "),
        lang,
        // The session's anti-CSRF token (as the dashboard's): a page elsewhere cannot know it.
        csrf_token: csrfTokenFor(request.cookies[SESSION_COOKIE] ?? ""),
      },
    }),
  );
}

async function currentSession(context: OAuthRouteContext, request: FastifyRequest): Promise<Session> {
  if (forwardedHeaders(request, "session")["x-session-token"] === undefined) return "signed-out";
  try {
    const session = await context.tenancy.getSession({}, sessionCall(context, request));
    if (session.credential !== "session") return "signed-out";
    return { tenantSlug: session.tenantSlug, email: session.email };
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.Unauthenticated) return "signed-out";
    throw error;
  }
}
