import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnumField, protoString } from "../../gateway-kit/proto-rules.js";
import {
  CancellationKindSchema,
  ConfirmCancellationRequestSchema,
  RequestCancellationRequestSchema,
} from "../../gen/memory/v1/billing_service_pb.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const fields = RequestCancellationRequestSchema.field;
const confirmFields = ConfirmCancellationRequestSchema.field;

/** Step 1 (the spec leaves the body open; ADR 0160): names the contract. */
export const cancellationRequestSchema = z
  .strictObject({
    email: protoString(fields.email).describe("Address of the account owner; the confirmation goes there"),
    workspace: protoString(fields.workspace).describe("Slug of the workspace whose subscription ends"),
    kind: protoEnumField(fields.kind)
      .optional()
      .describe(
        "ordinary (default): at the end of the paid period; extraordinary: for cause, reason required",
      ),
    reason: protoString(fields.reason).optional(),
    wishedDate: protoString(fields.wishedDate)
      .optional()
      .describe("YYYY-MM-DD; unset or earlier than the period end: the period end"),
  })
  .meta({ id: "CancellationRequest" });

/** Step 2, the "jetzt kündigen" button: the token of step 1. */
export const cancellationConfirmSchema = z
  .strictObject({
    confirmationToken: protoString(confirmFields.confirmationToken).describe(
      "From step 1; single use, valid 30 minutes",
    ),
  })
  .meta({ id: "CancellationConfirmation" });

const stepOneResponse = z
  .object({
    message: z.string(),
    confirmationToken: z.string(),
    expiresAt: z.string().describe("ISO 8601"),
  })
  .meta({ id: "CancellationPending" });

const stepTwoResponse = z
  .object({
    message: z.string().describe("The same for every contract, known or not"),
    receivedAt: z.string().describe("ISO 8601: date and time of receipt"),
  })
  .meta({ id: "CancellationReceived" });

/**
 * POST /api/kuendigung → BillingService/RequestCancellation, then ConfirmCancellation: the public
 * cancellation button (§312k BGB; spec: public, 5 / 60 s per IP). Two steps on one path: the
 * contract's details return a signed one-time token; the token alone ("jetzt kündigen") cancels.
 * Both answer alike for unknown contracts. A button is usually an HTML form, so besides JSON this
 * route also reads application/x-www-form-urlencoded.
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
          summary: "Public cancellation button (Kündigung), two steps",
          description:
            "Step 1: {email, workspace, kind?, reason?, wishedDate?} → {message, confirmationToken, expiresAt}. " +
            'Step 2 ("jetzt kündigen"): {confirmationToken} → {message, receivedAt}; cancels at the period end ' +
            "(or the later wished date) and mails a confirmation with the time of receipt and the effective date. " +
            "Both steps answer alike whether or not the contract exists. 503 when payments are not configured. " +
            "Step 2 calls memory.v1.BillingService/ConfirmCancellation.",
          tag: "billing",
          rpc: "memory.v1.BillingService/RequestCancellation",
        }),
        consumes: ["application/json", "application/x-www-form-urlencoded"],
        body: z.union([cancellationConfirmSchema, cancellationRequestSchema]),
        response: { 200: z.union([stepTwoResponse, stepOneResponse]), ...errorResponses(options.auth, 415) },
      },
    },
    async (request) => {
      const body = request.body;
      const { billing } = options.clients;
      if ("confirmationToken" in body) {
        const done = await billing.confirmCancellation(
          { confirmationToken: body.confirmationToken },
          coreCall(request, options),
        );
        return { message: done.message, receivedAt: isoTime(done.receivedAt) ?? "" };
      }
      const { email, workspace, kind, reason, wishedDate } = body;
      const result = await billing.requestCancellation(
        {
          email,
          workspace,
          ...(kind === undefined ? {} : { kind: enumNumber(CancellationKindSchema, kind) }),
          ...(reason === undefined ? {} : { reason }),
          ...(wishedDate === undefined ? {} : { wishedDate }),
        },
        coreCall(request, options),
      );
      return {
        message: result.message,
        confirmationToken: result.confirmationToken,
        expiresAt: isoTime(result.expiresAt) ?? "",
      };
    },
  );
};
