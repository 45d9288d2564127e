import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnum } from "../../gateway-kit/proto-enum-schema.js";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  type ApiToken,
  CreateTokenRequestSchema,
  RevokeTokenRequestSchema,
  ScopeSchema,
  TokenKind,
} from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumNumber, enumWord } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const scopeSchema = protoEnum(ScopeSchema);

/** Spec "API token": id, name, scopes, createdAt, lastUsedAt (null until first use). */
export const apiTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(scopeSchema),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().describe("Updated on use, at most about once a minute"),
    kind: z
      .enum(["api", "oauth"])
      .describe(
        "api: a kmt_ token created here; oauth: an assistant connected through OAuth (name: the client's), revoked the same way",
      ),
  })
  .meta({ id: "ApiToken" });

const createTokenSchema = z
  .strictObject({
    name: protoString(CreateTokenRequestSchema.field.name),
    scopes: z.array(scopeSchema).min(1).max(3),
  })
  .meta({ id: "CreateTokenRequest" });

const createdTokenSchema = z
  .object({
    id: z.string(),
    token: z.string().describe("kmt_ + 43 base64url characters; shown once, store it now"),
  })
  .meta({ id: "CreatedToken" });

const revokedTokenSchema = z
  .object({ id: z.string(), revoked: z.literal(true) })
  .meta({ id: "RevokedToken" });

const tokenIdParams = z.strictObject({ id: protoString(RevokeTokenRequestSchema.field.id) });

function tokenBody(token: ApiToken) {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes.map((s) => enumWord(ScopeSchema, s) as z.infer<typeof scopeSchema>),
    createdAt: isoTime(token.createdAt) ?? "",
    lastUsedAt: isoTime(token.lastUsedAt),
    kind: token.kind === TokenKind.OAUTH ? ("oauth" as const) : ("api" as const),
  };
}

/**
 * API tokens → TenancyService (session only, spec "Authentication" 5): list, create (api plan, 402
 * plan gate otherwise; 409 at the 51st active token) and revoke (the next request with the token
 * is 401). The clear token appears only in the create answer.
 */
export const tokenRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { tenancy } = options.clients;

  routes.get(
    "/tokens",
    {
      schema: {
        ...describeOperation(options, {
          id: "listTokens",
          summary: "Active API tokens and OAuth connections of the workspace, newest first",
          tag: "tokens",
          rpc: "memory.v1.TenancyService/ListTokens",
        }),
        response: { 200: z.array(apiTokenSchema), ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const { tokens } = await tenancy.listTokens({}, coreCall(request, options));
      return tokens.map(tokenBody);
    },
  );

  routes.post(
    "/tokens",
    {
      schema: {
        ...describeOperation(options, {
          id: "createToken",
          summary: "Create an API token (api plan); the token is shown once",
          tag: "tokens",
          rpc: "memory.v1.TenancyService/CreateToken",
        }),
        body: createTokenSchema,
        response: { 200: createdTokenSchema, ...errorResponses(options.auth, 402, 409) },
      },
    },
    async (request) => {
      const created = await tenancy.createToken(
        {
          name: request.body.name,
          scopes: request.body.scopes.map((s) => enumNumber(ScopeSchema, s)),
        },
        coreCall(request, options),
      );
      return { id: created.id, token: created.token };
    },
  );

  routes.delete(
    "/tokens/:id",
    {
      schema: {
        ...describeOperation(options, {
          id: "revokeToken",
          summary: "Revoke an API token; its next use is answered 401",
          tag: "tokens",
          rpc: "memory.v1.TenancyService/RevokeToken",
        }),
        params: tokenIdParams,
        response: { 200: revokedTokenSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      await tenancy.revokeToken({ id: request.params.id }, coreCall(request, options));
      return { id: request.params.id, revoked: true as const };
    },
  );
};
