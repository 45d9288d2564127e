import { randomUUID } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";
import compress from "@fastify/compress";
import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from "fastify";
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";
import type { Logger } from "../config/logger.js";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import { mcpGateway } from "../gateway-mcp/mcp-gateway.js";
import { oauthGateway } from "../gateway-mcp/oauth/oauth-gateway.js";
import { toHttpError } from "../gateway-rest/http-errors.js";
import { registerOpenApi } from "../gateway-rest/openapi.js";
import { restGateway } from "../gateway-rest/rest-gateway.js";
import { type IpLimiterSource, installIpRateLimits } from "./ip-rate-limit.js";

export interface EdgeOptions {
  readonly clients: CoreClients;
  readonly logger: Logger;
  readonly version: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you control). */
  readonly trustProxy: boolean;
  /** Origins allowed by CORS; empty: CORS off. */
  readonly corsOrigins: readonly string[];
  /**
   * PUBLIC_URL: where sign-in redirects point; https makes the session cookie Secure. Every
   * composition root passes it; the default serves edges built alone in tests.
   */
  readonly publicUrl?: string;
  /**
   * The rate-limit store (Redis or memory) for the per-IP route limits (edge/ip-rate-limit.ts).
   * Every composition root passes it; without it (edges built alone in tests) there are none.
   */
  readonly rateLimiters?: IpLimiterSource;
  /** Deadline of one core call from the REST gateway (504 after it); default 30 s. */
  readonly coreTimeoutMs?: number;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** Query parameters that carry secrets (magic-link tokens) are never logged. */
const SECRET_QUERY = /([?&](?:token|code|key)=)[^&]*/gi;

/**
 * The HTTP edge: one Fastify server hosting both gateways (REST under /api, MCP at /api/mcp/v1 with
 * its OAuth authorization server under /api/oauth and /.well-known) and the liveness probe /health. Fastify for its schema-driven validation and serialisation (the same
 * zod schemas produce the OpenAPI document), its speed, and its maintained plugins (cookie, CORS,
 * compression, swagger).
 */
export async function createEdge(options: EdgeOptions): Promise<FastifyInstance> {
  // Access-log fields: never headers (credentials), never secret query values.
  const accessLogger: FastifyBaseLogger = options.logger.child(
    {},
    {
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: req.url.replace(SECRET_QUERY, "$1[redacted]"),
          ip: req.ip,
        }),
      },
    },
  );
  const app = Fastify({
    loggerInstance: accessLogger,
    trustProxy: options.trustProxy,
    bodyLimit: 1024 * 1024,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  // Set before any plugin registers: Fastify copies handlers into child contexts at registration.
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: `no route for ${request.method} ${request.url.split("?")[0]}` }),
  );

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const [first] = error.validation;
      const field =
        first?.instancePath.replace(/^\//, "").replaceAll("/", ".") ||
        String(first?.params?.missingProperty ?? "");
      return reply
        .code(400)
        .send({ error: `${field ? `${field}: ` : ""}${first?.message ?? "invalid request"}` });
    }
    if (error instanceof ConnectError) {
      const mapped = toHttpError(error);
      if (mapped.status >= 500) request.log.error({ err: error }, "core call failed");
      return reply.code(mapped.status).headers(mapped.headers).send(mapped.body);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return reply.code(500).send({ error: "internal error" });
    }
    return reply.code(status).send({ error: error.message });
  });

  await app.register(cookie);
  if (options.corsOrigins.length > 0) {
    await app.register(cors, { origin: [...options.corsOrigins], credentials: true });
  }
  await app.register(compress, { threshold: 1024, global: true });

  // Before any route, so the OpenAPI document collects every route.
  await registerOpenApi(app, { version: options.version });

  // Per-IP limits of the routes that ask for one in their config; before any route registers.
  if (options.rateLimiters) installIpRateLimits(app, options.rateLimiters);

  // Liveness only: no database check, no rate limit (spec: GET /health).
  app.get(
    "/health",
    {
      logLevel: "warn",
      schema: { summary: "Liveness probe", tags: ["status"], security: [], "x-auth": "None" },
    },
    async (_request, reply) => reply.type("text/plain").send("ok"),
  );

  const publicUrl = options.publicUrl ?? "http://localhost";
  await app.register(restGateway, {
    clients: options.clients,
    publicUrl,
    ...(options.coreTimeoutMs === undefined ? {} : { coreTimeoutMs: options.coreTimeoutMs }),
  });
  await app.register(mcpGateway, { clients: options.clients, version: options.version, publicUrl });
  await app.register(oauthGateway, {
    clients: options.clients,
    publicUrl,
    ...(options.coreTimeoutMs === undefined ? {} : { coreTimeoutMs: options.coreTimeoutMs }),
  });

  return app;
}
