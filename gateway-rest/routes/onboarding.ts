import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnumField, protoString } from "../../gateway-kit/proto-rules.js";
import { PlanSchema } from "../../gen/memory/v1/memory_pb.js";
import { OnboardRequestSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const fields = OnboardRequestSchema.field;

/** Spec "Tenant creation request": slug, name, plan, all required. */
export const onboardingRequestSchema = z
  .strictObject({
    slug: protoString(fields.slug).describe("^[a-z0-9][a-z0-9-]{1,62}$"),
    name: protoString(fields.name),
    plan: protoEnumField(fields.plan),
  })
  .meta({ id: "TenantCreationRequest" });

const onboardingResponseSchema = z
  .object({
    tenantId: z.string(),
    redirectUrl: z.string().describe("The dashboard, or the payment checkout for a paid plan"),
  })
  .meta({ id: "TenantCreated" });

/**
 * POST /api/onboarding → TenancyService/Onboard (session; spec: 10 / 60 s per IP). 409 for a taken
 * slug or a user who already has a workspace; 402 for a paid plan while payments are off.
 */
export const onboardingRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/onboarding",
    {
      config: { ipRateLimit: "onboarding" },
      schema: {
        ...describeOperation(options, {
          id: "onboard",
          summary: "Create the workspace of a newly signed-in user",
          tag: "tenancy",
          rpc: "memory.v1.TenancyService/Onboard",
        }),
        body: onboardingRequestSchema,
        response: { 200: onboardingResponseSchema, ...errorResponses(options.auth, 402, 409) },
      },
    },
    async (request) => {
      const { slug, name, plan } = request.body;
      const created = await options.clients.tenancy.onboard(
        { slug, name, plan: enumNumber(PlanSchema, plan) },
        coreCall(request, options),
      );
      return { tenantId: created.tenantId, redirectUrl: created.redirectUrl };
    },
  );
};
