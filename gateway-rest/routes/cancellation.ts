import { Code, ConnectError } from "@connectrpc/connect";
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

/**
 * One body for both steps (the spec leaves it open; ADR 0160). Step 1 names the contract: email,
 * workspace, kind, reason, wishedDate. Step 2 ("jetzt kündigen") sends only the confirmationToken of
 * step 1. Required fields are checked by core's proto rules, so a missing one is 400 naming it.
 */
export const cancellationRequestSchema = z
  .strictObject({
    email: protoString(fields.email)
      .optional()
      .describe("Step 1, required: address of the account owner; the confirmation goes there"),
    workspace: protoString(fields.workspace)
      .optional()
      .describe("Step 1, required: slug of the workspace whose subscription ends"),
    kind: protoEnumField(fields.kind)
      .optional()
      .describe(
        "Step 1: ordinary (default), at the end of the paid period; extraordinary, for cause, reason required",
      ),
    reason: protoString(fields.reason).optional().describe("Step 1"),
    wishedDate: protoString(fields.wishedDate)
      .optional()
      .describe("Step 1: YYYY-MM-DD; unset or earlier than the period end: the period end"),
    confirmationToken: protoString(confirmFields.confirmationToken)
      .optional()
      .describe("Step 2, alone: the token of step 1; single use, valid 30 minutes"),
  })
  .meta({ id: "CancellationRequest" });

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
        body: cancellationRequestSchema,
        response: { 200: z.union([stepTwoResponse, stepOneResponse]), ...errorResponses(options.auth, 415) },
      },
    },
    async (request) => {
      const { confirmationToken, ...contract } = request.body;
      const { billing } = options.clients;
      if (confirmationToken !== undefined) {
        const extra = Object.keys(contract);
        if (extra.length > 0) {
          throw new ConnectError(
            `confirmationToken: send it alone in the confirmation step (also got ${extra.join(", ")})`,
            Code.InvalidArgument,
          );
        }
        const done = await billing.confirmCancellation({ confirmationToken }, coreCall(request, options));
        return { message: done.message, receivedAt: isoTime(done.receivedAt) ?? "" };
      }
      const { email, workspace, kind, reason, wishedDate } = contract;
      const result = await billing.requestCancellation(
        {
          email: email ?? "",
          workspace: workspace ?? "",
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
