import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";

/** A route as registered, for the test that every route is documented. */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  /** Hidden from the document on purpose (docs UI assets, the document itself). */
  readonly hidden: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route registered after registerOpenApi, in registration order. */
    readonly registeredRoutes: readonly RegisteredRoute[];
  }
}

export const OPENAPI_PATH = "/api/openapi.json";
export const DOCS_PATH = "/api/docs";

/**
 * OpenAPI 3.1 generated from the zod schemas the routes validate with (via @fastify/swagger and
 * fastify-type-provider-zod's transform): there is no hand-kept copy. Served at /api/openapi.json;
 * a human-readable reference (swagger-ui, assets from npm, nothing fetched at run time) at
 * /api/docs. Must be registered before any route so every route is collected.
 */
export async function registerOpenApi(app: FastifyInstance, options: { version: string }): Promise<void> {
  const registered: RegisteredRoute[] = [];
  app.decorate("registeredRoutes", registered);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of methods) registered.push({ method, url: route.url, hidden });
  });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Memory service REST API",
        version: options.version,
        description:
          "camelCase REST for the persistent memory service. Unversioned paths follow the interface " +
          "specification's endpoint table; /api/v1 is the bearer-token surface for integrations. " +
          "Errors are `{error}`; 402 carries the plan-gate body.",
      },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "kmt_<base64url>" },
          session: { type: "apiKey", in: "cookie", name: "service.session-token" },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PATH, staticCSP: true });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
