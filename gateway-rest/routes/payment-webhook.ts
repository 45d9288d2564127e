import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/**
 * Spec "Authentication": the payment webhook authenticates by its `Provider-Signature` header. Stripe
 * itself sends `Stripe-Signature`; it is accepted as well, so no proxy has to rename it.
 */
const headersSchema = z.object({
  "provider-signature": z.string().optional().describe("HMAC-SHA256 signature; missing or wrong → 400"),
  "stripe-signature": z.string().optional().describe("Stripe's own name for the same header"),
});

const acceptedSchema = z
  .object({
    received: z.literal(true),
    processed: z.boolean().describe("false when this event id was processed before (idempotent replay)"),
    eventType: z.string(),
  })
  .meta({ id: "PaymentEventAccepted" });

/** Signed payloads are capped by core's proto (1 MiB); the body is read as raw bytes. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * POST /api/checkout/webhook → BillingService/HandlePaymentEvent. The signature covers the
 * unmodified bytes, so this route keeps the raw body (any content type) instead of parsing JSON;
 * verification and idempotency are core's (spec "Endpoints" notes).
 */
export const paymentWebhookRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    "/checkout/webhook",
    {
      schema: {
        ...describeOperation(options, {
          id: "handlePaymentEvent",
          summary: "Payment-provider webhook (checkout.session.completed, customer.subscription.deleted)",
          description: "200 accepted; 400 invalid signature; 503 payments not configured.",
          tag: "billing",
          rpc: "memory.v1.BillingService/HandlePaymentEvent",
        }),
        headers: headersSchema,
        response: { 200: acceptedSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const payload = Buffer.isBuffer(request.body) ? new Uint8Array(request.body) : new Uint8Array();
      const result = await options.clients.billing.handlePaymentEvent(
        {
          payload,
          signature: request.headers["provider-signature"] ?? request.headers["stripe-signature"] ?? "",
        },
        coreCall(request, options),
      );
      return { received: true as const, processed: result.processed, eventType: result.eventType };
    },
  );
};
