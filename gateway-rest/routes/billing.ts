import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnumField } from "../../gateway-kit/proto-rules.js";
import {
  BillingPeriod,
  BillingPeriodSchema,
  CreateCheckoutRequestSchema,
  type PlanPrice,
} from "../../gen/memory/v1/billing_service_pb.js";
import { PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumNumber, enumWord } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
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

const PLAN_WORDS = ["free", "plus", "pro", "team", "api"] as const;

const priceSchema = z
  .object({
    unitAmount: z.int().describe("In the currency's smallest unit (cents)"),
    currency: z.string().describe("ISO 4217, lower case: the customer's currency where the price has it"),
  })
  .meta({ id: "PlanPrice" });

/** GET /api/billing: the billing page's data. */
export const billingResponseSchema = z
  .object({
    currentPlan: z.enum(PLAN_WORDS),
    paymentsConfigured: z.boolean(),
    hasPaymentCustomer: z.boolean().describe("The customer portal can be opened"),
    subscription: z
      .object({
        plan: z.enum(PLAN_WORDS),
        billing: z.enum(["monthly", "yearly"]),
        status: z.string().describe("The payment provider's word: active, past_due, trialing, …"),
        currentPeriodEnd: z
          .string()
          .nullable()
          .describe("ISO 8601; null when the provider could not be read"),
        cancelAt: z
          .string()
          .nullable()
          .describe("ISO 8601: a scheduled end (cancellation received); null: renews"),
      })
      .nullable(),
    plans: z
      .array(
        z.object({
          plan: z.enum(PLAN_WORDS),
          memoryLimit: z.int().nullable().describe("null: no limit"),
          requestsPerMinutePerToken: z.int(),
          auditRetentionDays: z.int(),
          mcpRequestsPerMinutePerIp: z.int().nullable(),
          features: z.array(z.string()).describe("byok, audit_export, webhooks, api_tokens"),
          prices: z.object({ monthly: priceSchema.nullable(), yearly: priceSchema.nullable() }),
        }),
      )
      .describe("Every plan, cheapest first, with the limits of the plan table"),
  })
  .meta({ id: "Billing" });

const planWord = (plan: number) => enumWord(PlanSchema, plan) as (typeof PLAN_WORDS)[number];
const price = (p: PlanPrice | undefined) =>
  p ? { unitAmount: Number(p.unitAmount), currency: p.currency } : null;

/**
 * Subscriptions through the payment provider → BillingService. Session only (spec "Authentication"
 * 5); 503 while payments are not configured. Return addresses are built from PUBLIC_URL.
 */
export const billingRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const context = billingRouteContext(app, options);
  createCheckoutRoute(context);
  getBillingRoute(context);
  createPortalSessionRoute(context);
};

/** What the billing routes share: the zod-typed route table and the core client. */
function billingRouteContext(app: FastifyInstance, options: RestRouteOptions) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { billing } = options.clients;
  return { options, routes, billing };
}

type BillingRouteContext = ReturnType<typeof billingRouteContext>;

/** POST /checkout */
function createCheckoutRoute({ options, routes, billing }: BillingRouteContext): void {
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
}

/** GET /billing */
function getBillingRoute({ options, routes, billing }: BillingRouteContext): void {
  routes.get(
    "/billing",
    {
      schema: {
        ...describeOperation(options, {
          id: "getBilling",
          summary: "Plan, subscription and every plan with its limits and prices",
          description:
            "For the dashboard's billing page: the current plan, the subscription's period end and a scheduled " +
            "cancellation, whether the customer portal can be opened, and every plan with the limits of the plan " +
            "table and the configured prices (null without payments).",
          tag: "billing",
          rpc: "memory.v1.BillingService/GetBilling",
        }),
        response: { 200: billingResponseSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const answer = await billing.getBilling({}, coreCall(request, options));
      const sub = answer.subscription;
      return {
        currentPlan: planWord(answer.currentPlan),
        paymentsConfigured: answer.paymentsConfigured,
        hasPaymentCustomer: answer.hasPaymentCustomer,
        subscription: sub
          ? {
              plan: planWord(sub.plan),
              billing: sub.billing === BillingPeriod.YEARLY ? ("yearly" as const) : ("monthly" as const),
              status: sub.status,
              currentPeriodEnd: isoTime(sub.currentPeriodEnd) ?? null,
              cancelAt: isoTime(sub.cancelAt) ?? null,
            }
          : null,
        plans: answer.plans.map((offer) => ({
          plan: planWord(offer.plan),
          memoryLimit: offer.memoryLimit === undefined ? null : Number(offer.memoryLimit),
          requestsPerMinutePerToken: offer.requestsPerMinutePerToken,
          auditRetentionDays: offer.auditRetentionDays,
          mcpRequestsPerMinutePerIp: offer.mcpRequestsPerMinutePerIp ?? null,
          features: offer.features,
          prices: { monthly: price(offer.monthly), yearly: price(offer.yearly) },
        })),
      };
    },
  );
}

/** POST /subscription/portal */
function createPortalSessionRoute({ options, routes, billing }: BillingRouteContext): void {
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
}
