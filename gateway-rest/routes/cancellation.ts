import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { RequestCancellationRequestSchema } from "../../gen/memory/v1/billing_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const fields = RequestCancellationRequestSchema.field;

/** The spec leaves the body open ("body not shown"); this is RequestCancellation's message. */
export const cancellationRequestSchema = z
  .strictObject({
    email: protoString(fields.email).describe("Address of the account whose subscription ends"),
    reason: protoString(fields.reason).optional(),
  })
  .meta({ id: "CancellationRequest" });

const cancellationResponseSchema = z.object({ message: z.string() }).meta({ id: "CancellationAccepted" });

/**
 * POST /api/kuendigung → BillingService/RequestCancellation: the public cancellation button
 * (spec: public, 5 / 60 s per IP). A button is usually an HTML form, so besides JSON this route
 * also reads application/x-www-form-urlencoded.
 */
export const cancellationRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    "/kuendigung",
    {
      // Spec "Rate limits": /api/kuendigung 5 / 60 s per IP (edge/ip-rate-limit.ts).
      config: { ipRateLimit: "kuendigung" },
      schema: {
        ...describeOperation(options, {
          id: "requestCancellation",
          summary: "Public cancellation button (Kündigung)",
          tag: "billing",
          rpc: "memory.v1.BillingService/RequestCancellation",
        }),
        consumes: ["application/json", "application/x-www-form-urlencoded"],
        body: cancellationRequestSchema,
        response: { 200: cancellationResponseSchema, ...errorResponses(options.auth, 415) },
      },
    },
    async (request) => {
      const { email, reason } = request.body;
      const result = await options.clients.billing.requestCancellation(
        { email, ...(reason === undefined ? {} : { reason }) },
        coreCall(request, options),
      );
      return { message: result.message };
    },
  );
};
