import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { BillingPeriodName } from "../../config/config.js";
import {
  BillingPeriod,
  type BillingService,
  BillingSubscriptionSchema,
  CancellationKind,
  PlanOfferSchema,
  PlanPriceSchema,
} from "../../gen/memory/v1/billing_service_pb.js";
import { PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumValue, enumWord } from "../../lib/proto-enum-words.js";
import { tenantCaller } from "../auth/caller.js";
import { clientIpKey } from "../auth/principal.js";
import { invalidArgument } from "../errors.js";
import { confirmCancellation } from "./confirm-cancellation.js";
import { createCheckout } from "./create-checkout.js";
import { createPortalSession } from "./create-portal-session.js";
import { getBilling, type PlanPriceView } from "./get-billing.js";
import { handlePaymentEvent } from "./handle-payment-event.js";
import { type BillingDeps, isPaidPlan } from "./payments.js";
import { requestCancellation } from "./request-cancellation.js";

const clientIp = (ctx: HandlerContext) => ctx.values.get(clientIpKey);

const periodName = (period: BillingPeriod): BillingPeriodName =>
  period === BillingPeriod.YEARLY ? "yearly" : "monthly";

const planNumber = (plan: string) => enumValue(PlanSchema, plan);

const priceMessage = (price: PlanPriceView | undefined) =>
  price
    ? create(PlanPriceSchema, { unitAmount: BigInt(price.unitAmount), currency: price.currency })
    : undefined;

/**
 * BillingService: Stripe checkout and customer portal, the signed payment webhook, and the public
 * cancellation (Kündigung). Without Stripe keys every method but the cancellation's validation
 * answers UNAVAILABLE "payments not configured" (HTTP 503).
 */
export function createBillingService(deps: BillingDeps): ServiceImpl<typeof BillingService> {
  return {
    async createCheckout(req, ctx) {
      const caller = tenantCaller(ctx);
      const plan = enumWord(PlanSchema, req.plan);
      if (!isPaidPlan(plan)) throw invalidArgument("plan", "plan: one of plus, pro, team, api");
      const url = await createCheckout(deps, {
        tenantId: caller.tenantId,
        plan,
        period: periodName(req.billing),
        email: caller.principal.kind === "session" ? caller.principal.email : undefined,
        baseUrl: req.baseUrl || deps.publicUrl,
      });
      return { url };
    },

    async createPortalSession(req, ctx) {
      const caller = tenantCaller(ctx);
      return {
        url: await createPortalSession(deps, {
          tenantId: caller.tenantId,
          baseUrl: req.baseUrl || deps.publicUrl,
        }),
      };
    },

    async handlePaymentEvent(req) {
      return handlePaymentEvent(deps, { payload: req.payload, signature: req.signature });
    },

    async requestCancellation(req) {
      const result = requestCancellation(deps, {
        email: req.email.trim(),
        workspace: req.workspace,
        kind: req.kind === CancellationKind.EXTRAORDINARY ? "extraordinary" : "ordinary",
        ...(req.reason?.trim() ? { reason: req.reason.trim() } : {}),
        ...(req.wishedDate ? { wishedDate: req.wishedDate } : {}),
      });
      return {
        message: result.message,
        confirmationToken: result.confirmationToken,
        expiresAt: timestampFromDate(result.expiresAt),
      };
    },

    async getBilling(_req, ctx) {
      const caller = tenantCaller(ctx);
      const view = await getBilling(deps, caller.tenantId);
      const sub = view.subscription;
      return {
        currentPlan: planNumber(view.currentPlan),
        paymentsConfigured: view.paymentsConfigured,
        hasPaymentCustomer: view.hasPaymentCustomer,
        ...(sub
          ? {
              subscription: create(BillingSubscriptionSchema, {
                plan: planNumber(sub.plan),
                billing: sub.billing === "yearly" ? BillingPeriod.YEARLY : BillingPeriod.MONTHLY,
                status: sub.status,
                ...(sub.currentPeriodEnd
                  ? { currentPeriodEnd: timestampFromDate(sub.currentPeriodEnd) }
                  : {}),
                ...(sub.cancelAt ? { cancelAt: timestampFromDate(sub.cancelAt) } : {}),
              }),
            }
          : {}),
        plans: view.plans.map((offer) =>
          create(PlanOfferSchema, {
            plan: planNumber(offer.plan),
            ...(offer.memoryLimit === undefined ? {} : { memoryLimit: BigInt(offer.memoryLimit) }),
            requestsPerMinutePerToken: offer.requestsPerMinutePerToken,
            auditRetentionDays: offer.auditRetentionDays,
            ...(offer.mcpRequestsPerMinutePerIp === undefined
              ? {}
              : { mcpRequestsPerMinutePerIp: offer.mcpRequestsPerMinutePerIp }),
            features: [...offer.features],
            ...(offer.prices.monthly ? { monthly: priceMessage(offer.prices.monthly) } : {}),
            ...(offer.prices.yearly ? { yearly: priceMessage(offer.prices.yearly) } : {}),
          }),
        ),
      };
    },

    async confirmCancellation(req, ctx) {
      const result = await confirmCancellation(deps, {
        confirmationToken: req.confirmationToken,
        ip: clientIp(ctx),
      });
      return { message: result.message, receivedAt: timestampFromDate(result.receivedAt) };
    },
  };
}

/** Onboarding's checkout for a paid plan (monthly; the period can be changed in the portal). */
export function onboardingCheckout(deps: BillingDeps) {
  return async (input: { tenantId: string; plan: string; email: string }): Promise<string> => {
    if (!isPaidPlan(input.plan)) throw invalidArgument("plan", "plan: one of plus, pro, team, api");
    return createCheckout(deps, {
      tenantId: input.tenantId,
      plan: input.plan,
      period: "monthly",
      email: input.email,
      baseUrl: deps.publicUrl,
    });
  };
}
