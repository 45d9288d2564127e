import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { SESSION_COOKIE } from "../../gateway-kit/credentials.js";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import {
  CompleteSignInRequestSchema,
  ScopeSchema,
  StartSignInRequestSchema,
} from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumWord, enumWords } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/** The auth routes also need the configured public URL: links, redirects and the cookie's Secure flag. */
export interface AuthRouteOptions extends RestRouteOptions {
  readonly publicUrl: string;
}

const start = StartSignInRequestSchema.field;

/** Body of POST /api/auth/signin/email (the spec leaves it open: "body not shown"). */
export const signInRequestSchema = z
  .strictObject({
    email: protoString(start.email),
    callbackPath: protoString(start.callbackPath)
      .optional()
      .describe(
        "Path on this host to open after sign-in (default /dashboard); first sign-in goes to /onboarding",
      ),
  })
  .meta({ id: "SignInRequest" });

const signInResponseSchema = z
  .object({
    sent: z.literal(true),
    expiresInHours: z.literal(24),
  })
  .meta({ id: "SignInLinkSent" });

const callbackQuery = z.strictObject({ token: protoString(CompleteSignInRequestSchema.field.token) });

const signedInSchema = z
  .object({
    redirectUrl: z.string(),
    needsOnboarding: z.boolean(),
  })
  .meta({ id: "SignedIn" });

const sessionSchema = z
  .object({
    credential: z.enum(["session", "token"]),
    userId: z.string().nullable(),
    email: z.string().nullable(),
    tenantId: z.string().nullable(),
    tenantSlug: z.string().nullable(),
    plan: z.enum(enumWords(PlanSchema)).nullable(),
    scopes: z.array(z.enum(enumWords(ScopeSchema))),
    features: z
      .array(z.string())
      .describe("Feature words of the workspace's plan: byok, audit_export, webhooks, api_tokens"),
  })
  .meta({ id: "Session" });

/** Sign-in providers this service offers under /api/auth/signin/*. */
const PROVIDERS = ["email"] as const;

/**
 * Magic-link sign-in and sessions → TenancyService (spec "Authentication" 2):
 * - POST /api/auth/signin/email {email, callbackPath?} → 200 {sent, expiresInHours}; the same
 *   answer whether or not the address has an account. Other providers → 404. 5 / 60 s per IP,
 *   sliding, over the whole /api/auth/signin/* family.
 * - GET /api/auth/callback/email?token=… consumes the link, sets the session cookie and answers
 *   303 to /onboarding (first sign-in) or the callback path; a used, expired or unknown link → 401.
 * - POST /api/auth/signout revokes the session and clears the cookie.
 * - GET /api/auth/session: who the caller is (session or bearer token).
 */
export const authRoutes: FastifyPluginAsync<AuthRouteOptions> = async (app, options) => {
  const context = authRouteContext(app, options);
  signInWithEmailRoute(context);
  unsupportedSignInProviderRoute(context);
  completeEmailSignInRoute(context);
  signOutRoute(context);
  getSessionRoute(context);
};

/** What the sign-in routes share: the zod-typed route table, the core client, the cookie policy, the per-route credential. */
function authRouteContext(app: FastifyInstance, options: AuthRouteOptions) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { tenancy } = options.clients;
  const secureCookie = new URL(options.publicUrl).protocol === "https:";
  const as = (auth: RestRouteOptions["auth"]) => ({ ...options, auth });
  return { options, routes, tenancy, secureCookie, as };
}

type AuthRouteContext = ReturnType<typeof authRouteContext>;

/** POST /auth/signin/email */
function signInWithEmailRoute({ options, routes, tenancy, as }: AuthRouteContext): void {
  routes.post(
    "/auth/signin/email",
    {
      config: { ipRateLimit: "signin" },
      schema: {
        ...describeOperation(as("none"), {
          id: "signInWithEmail",
          summary: "Mail a sign-in link (valid 24 h, single use)",
          tag: "auth",
          rpc: "memory.v1.TenancyService/StartSignIn",
        }),
        body: signInRequestSchema,
        response: { 200: signInResponseSchema, ...errorResponses("none") },
      },
    },
    async (request) => {
      const { email, callbackPath } = request.body;
      await tenancy.startSignIn(
        { email, baseUrl: options.publicUrl, ...(callbackPath === undefined ? {} : { callbackPath }) },
        coreCall(request, as("none")),
      );
      return { sent: true as const, expiresInHours: 24 as const };
    },
  );
}

/** POST /auth/signin/:provider */
function unsupportedSignInProviderRoute({ routes }: AuthRouteContext): void {
  // The rest of the /api/auth/signin/* family: counted against the same per-IP limit, answered
  // with the providers that exist.
  routes.post(
    "/auth/signin/:provider",
    {
      config: { ipRateLimit: "signin" },
      schema: { hide: true, params: z.object({ provider: z.string() }) },
    },
    async (request, reply) =>
      reply.code(404).send({
        error: `sign-in provider '${request.params.provider.slice(0, 40)}' is not supported; use POST /api/auth/signin/${PROVIDERS.join(", ")}`,
      }),
  );
}

/** GET /auth/callback/email */
function completeEmailSignInRoute({ options, routes, tenancy, secureCookie, as }: AuthRouteContext): void {
  routes.get(
    "/auth/callback/email",
    {
      schema: {
        ...describeOperation(as("none"), {
          id: "completeEmailSignIn",
          summary: "Follow a sign-in link: sets the session cookie and redirects",
          tag: "auth",
          rpc: "memory.v1.TenancyService/CompleteSignIn",
        }),
        querystring: callbackQuery,
        response: { 303: signedInSchema, ...errorResponses("none") },
      },
    },
    async (request, reply) => {
      const done = await tenancy.completeSignIn(
        { token: request.query.token },
        coreCall(request, as("none")),
      );
      const expires = done.expiresAt ? timestampDate(done.expiresAt) : undefined;
      const redirectUrl = `${options.publicUrl}${done.redirectPath}`;
      reply.setCookie(SESSION_COOKIE, done.sessionToken, {
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure: secureCookie,
        ...(expires ? { expires } : {}),
      });
      return reply
        .code(303)
        .header("location", redirectUrl)
        .header("cache-control", "no-store")
        .send({ redirectUrl, needsOnboarding: done.needsOnboarding });
    },
  );
}

/** POST /auth/signout */
function signOutRoute({ routes, tenancy, secureCookie, as }: AuthRouteContext): void {
  routes.post(
    "/auth/signout",
    {
      schema: {
        ...describeOperation(as("session"), {
          id: "signOut",
          summary: "Revoke the current session and clear its cookie",
          tag: "auth",
          rpc: "memory.v1.TenancyService/SignOut",
        }),
        response: { 200: z.object({ signedOut: z.literal(true) }), ...errorResponses("session") },
      },
    },
    async (request, reply) => {
      // The cookie goes whether or not the session was still valid: the browser should forget it.
      reply.clearCookie(SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "lax", secure: secureCookie });
      await tenancy.signOut({}, coreCall(request, as("session")));
      return { signedOut: true as const };
    },
  );
}

/** GET /auth/session */
function getSessionRoute({ routes, tenancy, as }: AuthRouteContext): void {
  routes.get(
    "/auth/session",
    {
      schema: {
        ...describeOperation(as("both"), {
          id: "getSession",
          summary: "Who is calling: user, workspace, plan and scopes",
          tag: "auth",
          rpc: "memory.v1.TenancyService/GetSession",
        }),
        response: { 200: sessionSchema, ...errorResponses("both") },
      },
    },
    async (request) => {
      const s = await tenancy.getSession({}, coreCall(request, as("both")));
      return {
        credential: s.credential === "token" ? ("token" as const) : ("session" as const),
        userId: s.userId ?? null,
        email: s.email ?? null,
        tenantId: s.tenantId ?? null,
        tenantSlug: s.tenantSlug ?? null,
        plan: s.plan ? enumWord(PlanSchema, s.plan) : null,
        scopes: s.scopes.map((scope) => enumWord(ScopeSchema, scope)),
        features: s.features,
      };
    },
  );
}
