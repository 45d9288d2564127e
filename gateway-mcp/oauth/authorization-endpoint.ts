import { type CallOptions, Code, ConnectError } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CoreClients } from "../../gateway-kit/core-clients.js";
import { forwardedHeaders, SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { readErrorDetails } from "../../gateway-kit/error-details.js";
import { type OAuthClient, ScopeSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { csrfTokenFor, isCsrfTokenOf } from "../../lib/csrf-token.js";
import { enumNumber, enumWord } from "../../lib/proto-enum-words.js";
import { sameResource } from "../../lib/resource-indicator.js";
import { OAuthRequestError, toOAuthError } from "./oauth-errors.js";
import { doc, mcpResourceUrl, OAUTH_PATHS } from "./oauth-metadata.js";
import {
  consentPage,
  errorPage,
  type Language,
  linkSentPage,
  onboardingPage,
  pickLanguage,
  signInPage,
} from "./oauth-pages.js";
import { type Params, paramsOf, required, scopeWords, single } from "./oauth-params.js";

export interface AuthorizationEndpointOptions {
  readonly clients: CoreClients;
  readonly publicUrl: string;
  readonly coreTimeoutMs: number;
}

/** A validated authorization request (RFC 6749 4.1.1 with PKCE and RFC 8707 resource). */
interface AuthorizationRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly redirectUriGiven: boolean;
  readonly state: string | undefined;
  readonly scopes: string[];
  readonly codeChallenge: string;
  readonly resource: string | undefined;
}

/** A refusal that is sent back to the client at its redirect URI (RFC 6749 4.1.2.1). */
class RedirectableError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * GET/POST /api/oauth/authorize and POST /api/oauth/signin: the browser part of the authorization
 * code flow. The request is checked in the RFC's two phases: an unknown client or a redirect URI
 * that is not registered is shown to the user (never redirected to); every later problem goes back
 * to the client's redirect URI as `error=…`. Then: no session → the sign-in page (magic link, which
 * returns here); a session → the consent page; consent → core issues the code → 303 to the client.
 */
export async function registerAuthorizationEndpoint(
  app: FastifyInstance,
  options: AuthorizationEndpointOptions,
): Promise<void> {
  const { tenancy } = options.clients;
  const publicOrigin = new URL(options.publicUrl).origin;
  const call = (request: FastifyRequest): CallOptions => ({
    headers: forwardedHeaders(request, "session"),
    timeoutMs: options.coreTimeoutMs,
  });

  /** Phase 1: client and redirect URI. Problems here are answered to the user, not redirected. */
  async function clientAndRedirect(
    request: FastifyRequest,
    params: Params,
  ): Promise<{ client: OAuthClient; redirectUri: string; redirectUriGiven: boolean }> {
    const clientId = required(params, "client_id");
    const { client } = await tenancy.getOAuthClient({ clientId }, call(request));
    if (!client) throw new OAuthRequestError("invalid_client", "unknown client_id");
    const given = single(params, "redirect_uri");
    if (given !== undefined) {
      if (!client.redirectUris.includes(given)) {
        throw new OAuthRequestError("invalid_request", "redirect_uri is not registered for this client");
      }
      return { client, redirectUri: given, redirectUriGiven: true };
    }
    const [only] = client.redirectUris;
    if (client.redirectUris.length !== 1 || only === undefined) {
      throw new OAuthRequestError(
        "invalid_request",
        "redirect_uri is required: the client registered several",
      );
    }
    return { client, redirectUri: only, redirectUriGiven: false };
  }

  /** Phase 2: the rest of the request; problems are redirected to the client. */
  function authorizationRequest(
    phase1: { client: OAuthClient; redirectUri: string; redirectUriGiven: boolean },
    params: Params,
    state: string | undefined,
  ): AuthorizationRequest {
    const responseType = single(params, "response_type");
    if (responseType !== "code") {
      throw new RedirectableError("unsupported_response_type", "response_type must be 'code'");
    }
    const codeChallenge = single(params, "code_challenge");
    if (codeChallenge === undefined) {
      throw new RedirectableError("invalid_request", "PKCE is required: send code_challenge (S256)");
    }
    if (single(params, "code_challenge_method") !== "S256") {
      throw new RedirectableError("invalid_request", "code_challenge_method must be S256");
    }
    if (!S256_CHALLENGE.test(codeChallenge)) {
      throw new RedirectableError("invalid_request", "code_challenge must be 43 base64url characters (S256)");
    }
    const allowed = phase1.client.scopes.map((s) => enumWord(ScopeSchema, s));
    const asked = scopeWords(single(params, "scope"));
    const scopes = asked === undefined || asked.length === 0 ? allowed : asked;
    const outside = scopes.find((s) => !allowed.includes(s));
    if (outside !== undefined) {
      throw new RedirectableError(
        "invalid_scope",
        `scope '${outside.slice(0, 40)}' is not available to this client`,
      );
    }
    const resource = single(params, "resource");
    if (resource !== undefined && !sameResource(resource, mcpResourceUrl(options.publicUrl))) {
      throw new RedirectableError(
        "invalid_target",
        `this server issues tokens only for the resource ${mcpResourceUrl(options.publicUrl)}`,
      );
    }
    return { ...phase1, state, scopes, codeChallenge, resource };
  }

  function redirectBack(
    reply: FastifyReply,
    redirectUri: string,
    values: Record<string, string | undefined>,
  ): FastifyReply {
    const target = new URL(redirectUri);
    for (const [key, value] of Object.entries(values)) {
      if (value !== undefined) target.searchParams.set(key, value);
    }
    // RFC 9207: the issuer travels with the response, so a client talking to several servers can
    // tell which one answered.
    target.searchParams.set("iss", options.publicUrl);
    return reply.code(303).header("location", target.href).header("cache-control", "no-store").send();
  }

  /** Phase-1 problems and core failures: an HTML page for browsers, the RFC JSON otherwise. */
  function showError(
    request: FastifyRequest,
    reply: FastifyReply,
    lang: Language,
    error: unknown,
  ): FastifyReply {
    const answer = toOAuthError(error);
    if (answer.status >= 500) request.log.error({ err: error }, "authorization endpoint failed");
    reply.code(answer.status).headers(answer.headers).header("cache-control", "no-store");
    if (request.headers.accept?.includes("text/html")) {
      return reply.type("text/html; charset=utf-8").send(errorPage(lang, answer.error, answer.description));
    }
    return reply.send({ error: answer.error, error_description: answer.description });
  }

  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("x-frame-options", "DENY")
      .header(
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      )
      .send(body);

  app.get(
    OAUTH_PATHS.authorize,
    {
      config: { ipRateLimit: "oauth" },
      schema: doc(
        "Authorization endpoint (browser): response_type=code, client_id, redirect_uri, code_challenge + code_challenge_method=S256 (required), scope, state, resource. Shows sign-in (magic link) or the consent page; problems after client and redirect URI are checked go back to redirect_uri as error=…; 30 / 60 s per IP",
      ),
    },
    async (request, reply) => {
      const params = paramsOf(request.query);
      const lang = pickLanguage(params.lang?.[0], request.headers["accept-language"]);
      let phase1: Awaited<ReturnType<typeof clientAndRedirect>>;
      let state: string | undefined;
      try {
        state = single(params, "state");
        phase1 = await clientAndRedirect(request, params);
      } catch (error) {
        return showError(request, reply, lang, error);
      }
      let authorization: AuthorizationRequest;
      try {
        authorization = authorizationRequest(phase1, params, state);
      } catch (error) {
        if (error instanceof RedirectableError || error instanceof OAuthRequestError) {
          return redirectBack(reply, phase1.redirectUri, {
            error: error instanceof RedirectableError ? error.error : error.error,
            error_description: error.message,
            state,
          });
        }
        throw error;
      }
      const clientName = authorization.client.clientName;
      const session = await currentSession(request);
      if (session === "signed-out") {
        const returnTo = request.url;
        return html(reply, 200, signInPage(lang, { clientName, action: OAUTH_PATHS.signIn, returnTo }));
      }
      if (session.tenantSlug === undefined) return html(reply, 200, onboardingPage(lang, options.publicUrl));
      return html(
        reply,
        200,
        consentPage(lang, {
          clientName,
          clientUri: authorization.client.clientUri,
          workspace: session.tenantSlug,
          email: session.email ?? "",
          redirectHost: new URL(authorization.redirectUri).host,
          requested: authorization.scopes,
          action: OAUTH_PATHS.authorize,
          fields: {
            client_id: authorization.client.clientId,
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
    },
  );

  async function currentSession(
    request: FastifyRequest,
  ): Promise<"signed-out" | { tenantSlug: string | undefined; email: string | undefined }> {
    const headers = forwardedHeaders(request, "session");
    if (headers["x-session-token"] === undefined) return "signed-out";
    try {
      const session = await tenancy.getSession({}, call(request));
      if (session.credential !== "session") return "signed-out";
      return { tenantSlug: session.tenantSlug, email: session.email };
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.Unauthenticated) return "signed-out";
      throw error;
    }
  }

  // The consent form. SameSite=Lax keeps the session cookie off cross-site POSTs; the Origin and
  // Fetch-Metadata checks refuse them outright, and the form must carry the session's anti-CSRF
  // token. `Origin: null` (a browser that hides the origin, e.g. under a no-referrer policy) is
  // accepted only with that token and a same-origin Sec-Fetch-Site, where one is sent.
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
      const origin = request.headers.origin;
      const site = request.headers["sec-fetch-site"];
      const session = request.cookies[SESSION_COOKIE];
      if (
        (origin !== undefined && origin !== publicOrigin && origin !== "null") ||
        (site !== undefined && site !== "same-origin") ||
        (session !== undefined && !isCsrfTokenOf(single(form, "csrf_token"), session))
      ) {
        return showError(
          request,
          reply,
          lang,
          new OAuthRequestError("access_denied", "cross-site consent refused", 403),
        );
      }
      let phase1: Awaited<ReturnType<typeof clientAndRedirect>>;
      let state: string | undefined;
      try {
        state = single(form, "state");
        phase1 = await clientAndRedirect(request, form);
        if (phase1.redirectUriGiven !== (single(form, "redirect_uri_given") === "1")) {
          // The consent form always names the redirect URI; this says whether the client did.
          phase1 = { ...phase1, redirectUriGiven: single(form, "redirect_uri_given") === "1" };
        }
      } catch (error) {
        return showError(request, reply, lang, error);
      }
      const back = (values: Record<string, string | undefined>) =>
        redirectBack(reply, phase1.redirectUri, { ...values, state });
      try {
        // The form repeats the request with the requested scopes in requested_scope; `scope` holds
        // the boxes the user left ticked, which may only narrow them.
        const requestedScope = single(form, "requested_scope");
        const authorization = authorizationRequest(
          phase1,
          { ...form, scope: requestedScope === undefined ? [] : [requestedScope] },
          state,
        );
        const chosen = (form.scope ?? []).filter((s) => authorization.scopes.includes(s));
        if (single(form, "decision") !== "allow" || chosen.length === 0) {
          return back({ error: "access_denied", error_description: "the user denied access" });
        }
        const { code } = await tenancy.authorizeOAuthClient(
          {
            clientId: authorization.client.clientId,
            redirectUri: authorization.redirectUri,
            redirectUriGiven: authorization.redirectUriGiven,
            scopes: chosen.map((s) => enumNumber(ScopeSchema, s)),
            codeChallenge: authorization.codeChallenge,
            codeChallengeMethod: "S256",
            ...(authorization.resource === undefined ? {} : { resource: authorization.resource }),
          },
          call(request),
        );
        return back({ code });
      } catch (error) {
        if (error instanceof RedirectableError || error instanceof OAuthRequestError) {
          return back({ error: error.error, error_description: error.message });
        }
        const details = readErrorDetails(error);
        const oauthCode = details.metadata.oauth_error;
        if (oauthCode !== undefined && oauthCode !== "invalid_client") {
          return back({ error: oauthCode, error_description: details.message });
        }
        // Not signed in any more, plan gate, token cap: the user has to act, so they see it.
        if (details.code === Code.Unauthenticated) {
          return html(reply, 401, errorPage(lang, "login_required", details.message));
        }
        if (details.planGate !== undefined || details.code === Code.FailedPrecondition) {
          return html(reply, details.planGate ? 402 : 409, errorPage(lang, "access_denied", details.message));
        }
        return showError(request, reply, lang, error);
      }
    },
  );

  // Sign-in from the authorization page: mails a magic link that returns to the authorization
  // request. Counts against the per-IP sign-in limit (5 / 60 s) like /api/auth/signin/*.
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
        await tenancy.startSignIn(
          { email, baseUrl: options.publicUrl, callbackPath: returnTo },
          { headers: forwardedHeaders(request, "none"), timeoutMs: options.coreTimeoutMs },
        );
        return html(reply, 200, linkSentPage(lang, email));
      } catch (error) {
        return showError(request, reply, lang, error);
      }
    },
  );
}
