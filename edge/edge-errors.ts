import { ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { toHttpError } from "../gateway-rest/http-errors.js";

/**
 * The edge's 404 and its error answers: a schema violation 400 naming the field, a core error as the
 * REST gateway maps it, anything else its own status (500 logged, its message never sent). Set before
 * any plugin registers: Fastify copies handlers into child contexts at registration.
 */
export function installEdgeErrors(app: FastifyInstance): void {
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
}
