import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnumField } from "../../gateway-kit/proto-rules.js";
import { BillingPeriodSchema, CreateCheckoutRequestSchema } from "../../gen/memory/v1/billing_service_pb.js";
import { PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const checkout = CreateCheckoutRequestSchema.field;

/** Spec: `{plan: plus/pro/team/api (required), billing: monthly/yearly (default monthly)}`. */
export const checkoutRequestSchema = z
  .strictObject({
    plan: protoEnumField(checkout.plan),
    billing: protoEnumField(checkout.billing).optional().describe("monthly when unset"),
  })
  .meta({ id: "CheckoutRequest" });

const urlResponseSchema = z.object({ url: z.string() }).meta({ id: "RedirectUrl" });

/**
 * Subscriptions through the payment provider → BillingService. Session only (spec "Authentication"
 * 5); 503 while payments are not configured. Return addresses are built from PUBLIC_URL.
 */
export const billingRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { billing } = options.clients;

  routes.post(
    "/checkout",
    {
      // Spec "Rate limits": /api/checkout 10 / 60 s per IP (edge/ip-rate-limit.ts).
      config: { ipRateLimit: "checkout" },
      schema: {
        ...describeOperation(options, {
          id: "createCheckout",
          summary: "Checkout URL for a paid plan",
          tag: "billing",
          rpc: "memory.v1.BillingService/CreateCheckout",
        }),
        body: checkoutRequestSchema,
        response: { 200: urlResponseSchema, ...errorResponses(options.auth, 415) },
      },
    },
    async (request) => {
      const { plan, billing: period } = request.body;
      const result = await billing.createCheckout(
        {
          plan: enumNumber(PlanSchema, plan),
          ...(period === undefined ? {} : { billing: enumNumber(BillingPeriodSchema, period) }),
          baseUrl: options.publicUrl,
        },
        coreCall(request, options),
      );
      return { url: result.url };
    },
  );

  routes.post(
    "/subscription/portal",
    {
      schema: {
        ...describeOperation(options, {
          id: "createPortalSession",
          summary: "Customer-portal URL of the payment provider",
          description: "404 when the workspace has no payment customer (for example on the free plan).",
          tag: "billing",
          rpc: "memory.v1.BillingService/CreatePortalSession",
        }),
        response: { 200: urlResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const result = await billing.createPortalSession(
        { baseUrl: options.publicUrl },
        coreCall(request, options),
      );
      return { url: result.url };
    },
  );
};
