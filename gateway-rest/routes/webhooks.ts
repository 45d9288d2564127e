import { getOption } from "@bufbuild/protobuf";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnum } from "../../gateway-kit/proto-enum-schema.js";
import { protoInt, protoString } from "../../gateway-kit/proto-rules.js";
import {
  CreateSubscriptionRequestSchema,
  DeliveryStateSchema,
  GetSubscriptionRequestSchema,
  ListDeliveriesRequestSchema,
  type WebhookDelivery,
  type WebhookSubscription,
} from "../../gen/memory/v1/webhook_service_pb.js";
import { enumWord } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/** The selectable event kinds, read from the proto's `in` rule (spec "Events"). */
function eventKinds(): [string, ...string[]] {
  const rules = getOption(CreateSubscriptionRequestSchema.field.eventKinds, fieldRules);
  const items = rules.type.case === "repeated" ? rules.type.value.items?.type : undefined;
  const [first, ...rest] = items?.case === "string" ? items.value.in : [];
  if (first === undefined) throw new Error("event_kinds has no `in` rule");
  return [first, ...rest];
}

const KINDS = eventKinds();
const MAX_URL = 2048;

const eventKind = z.enum(KINDS, {
  error: (issue) => `unknown event kind '${String(issue.input)}'; known kinds: ${KINDS.join(", ")}`,
});

/** Spec "Delivery rules" 5: HTTPS only; at most 2,048 characters. */
const targetUrl = z
  .string()
  .max(MAX_URL, { error: `longer than ${MAX_URL} characters; use a shorter URL` })
  .regex(/^https:\/\//i, { error: "must start with https:// (webhooks are only sent over HTTPS)" })
  .refine((value) => URL.canParse(value), { error: "is not a valid absolute URL" })
  .describe("HTTPS URL the events are POSTed to");

const description = z.string().max(200).describe("Free text for the dashboard");

const subscriptionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    active: z.boolean().describe("false after 20 consecutive failed attempts, until reactivated"),
    consecutiveFailures: z.int(),
    createdAt: z.string(),
    deactivatedAt: z.string().nullable(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .describe("After a rotation: until then deliveries carry a signature with the old secret too"),
  })
  .meta({ id: "WebhookSubscription" });

const deliverySchema = z
  .object({
    id: z.string().describe("The delivery id, sent as X-service-Delivery on every attempt"),
    subscriptionId: z.string(),
    event: z.string(),
    status: protoEnum(DeliveryStateSchema),
    attempts: z.int(),
    lastResponseCode: z.int().nullable(),
    lastError: z
      .string()
      .nullable()
      .describe("Timeout, transport error or refusal of the last failed attempt"),
    nextAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    occurredAt: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: "WebhookDelivery" });

const createSchema = z
  .strictObject({
    url: targetUrl,
    events: z.array(eventKind).min(1).max(KINDS.length),
    description: description.optional(),
  })
  .meta({ id: "CreateWebhookRequest" });

const updateSchema = z
  .strictObject({
    url: targetUrl.optional(),
    events: z.array(eventKind).min(1).max(KINDS.length).optional(),
    description: description.optional(),
  })
  .meta({ id: "UpdateWebhookRequest" });

const secretSchema = z
  .object({
    id: z.string(),
    secret: z.string().describe("whsec_ + 43 base64url characters; shown once, store it now"),
  })
  .meta({ id: "WebhookSecret" });

const rotatedSchema = secretSchema
  .extend({ previousSecretExpiresAt: z.string().nullable() })
  .meta({ id: "RotatedWebhookSecret" });

const idParams = z.strictObject({ id: protoString(GetSubscriptionRequestSchema.field.id) });
const deliveriesQuery = z.strictObject({
  limit: protoInt(ListDeliveriesRequestSchema.field.limit, { coerce: true }).optional(),
});

function subscriptionBody(s: WebhookSubscription | undefined): z.infer<typeof subscriptionSchema> {
  if (!s) throw new Error("core returned no subscription");
  return {
    id: s.id,
    url: s.url,
    events: s.eventKinds,
    description: s.description,
    active: s.active,
    consecutiveFailures: s.consecutiveFailures,
    createdAt: isoTime(s.createdAt) ?? "",
    deactivatedAt: isoTime(s.deactivatedAt),
    previousSecretExpiresAt: isoTime(s.previousSecretExpiresAt),
  };
}

function deliveryBody(d: WebhookDelivery): z.infer<typeof deliverySchema> {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    event: d.event,
    status: enumWord(DeliveryStateSchema, d.state) as z.infer<typeof deliverySchema>["status"],
    attempts: d.attempts,
    lastResponseCode: d.lastStatus ?? null,
    lastError: d.lastError ?? null,
    nextAttemptAt: isoTime(d.nextAttemptAt),
    lastAttemptAt: isoTime(d.lastAttemptAt),
    occurredAt: isoTime(d.occurredAt) ?? "",
    createdAt: isoTime(d.createdAt) ?? "",
  };
}

/**
 * Outgoing webhook subscriptions → WebhookService (team plan and higher, 402 otherwise; a session or
 * an admin-scope token). The secret appears only in the create and rotate answers.
 */
export const webhookRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const context = webhookRouteContext(app, options);
  listWebhooksRoute(context);
  createWebhookRoute(context);
  getWebhookRoute(context);
  updateWebhookRoute(context);
  deleteWebhookRoute(context);
  testWebhookRoute(context);
  reactivateWebhookRoute(context);
  rotateWebhookSecretRoute(context);
  listWebhookDeliveriesRoute(context);
};

/** What the webhook routes share: the zod-typed route table, the core client, the OpenAPI operation of each. */
function webhookRouteContext(app: FastifyInstance, options: RestRouteOptions) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { webhooks } = options.clients;
  const op = (id: string, summary: string, rpc: string) =>
    describeOperation(options, { id, summary, tag: "webhooks", rpc: `memory.v1.WebhookService/${rpc}` });
  return { options, routes, webhooks, op };
}

type WebhookRouteContext = ReturnType<typeof webhookRouteContext>;

/** GET /webhooks */
function listWebhooksRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.get(
    "/webhooks",
    {
      schema: {
        ...op("listWebhooks", "Webhook subscriptions of the workspace, oldest first", "ListSubscriptions"),
        response: { 200: z.array(subscriptionSchema), ...errorResponses(options.auth, 402) },
      },
    },
    async (request) => {
      const { subscriptions } = await webhooks.listSubscriptions({}, coreCall(request, options));
      return subscriptions.map(subscriptionBody);
    },
  );
}

/** POST /webhooks */
function createWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.post(
    "/webhooks",
    {
      schema: {
        ...op(
          "createWebhook",
          "Subscribe an HTTPS URL to event kinds; the secret is shown once",
          "CreateSubscription",
        ),
        body: createSchema,
        response: { 200: secretSchema, ...errorResponses(options.auth, 402) },
      },
    },
    async (request) => {
      const created = await webhooks.createSubscription(
        {
          url: request.body.url,
          eventKinds: request.body.events,
          description: request.body.description ?? "",
        },
        coreCall(request, options),
      );
      return { id: subscriptionBody(created.subscription).id, secret: created.secret };
    },
  );
}

/** GET /webhooks/:id */
function getWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.get(
    "/webhooks/:id",
    {
      schema: {
        ...op("getWebhook", "One webhook subscription", "GetSubscription"),
        params: idParams,
        response: { 200: subscriptionSchema, ...errorResponses(options.auth, 402, 404) },
      },
    },
    async (request) => {
      const got = await webhooks.getSubscription({ id: request.params.id }, coreCall(request, options));
      return subscriptionBody(got.subscription);
    },
  );
}

/** PATCH /webhooks/:id */
function updateWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.patch(
    "/webhooks/:id",
    {
      schema: {
        ...op("updateWebhook", "Change url, events or description of a subscription", "UpdateSubscription"),
        params: idParams,
        body: updateSchema,
        response: { 200: subscriptionSchema, ...errorResponses(options.auth, 402, 404) },
      },
    },
    async (request) => {
      const { url, events, description: text } = request.body;
      const updated = await webhooks.updateSubscription(
        { id: request.params.id, url, eventKinds: events ?? [], description: text },
        coreCall(request, options),
      );
      return subscriptionBody(updated.subscription);
    },
  );
}

/** DELETE /webhooks/:id */
function deleteWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.delete(
    "/webhooks/:id",
    {
      schema: {
        ...op("deleteWebhook", "Delete a subscription and its deliveries", "DeleteSubscription"),
        params: idParams,
        response: {
          200: z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: "DeletedWebhook" }),
          ...errorResponses(options.auth, 402, 404),
        },
      },
    },
    async (request) => {
      await webhooks.deleteSubscription({ id: request.params.id }, coreCall(request, options));
      return { id: request.params.id, deleted: true as const };
    },
  );
}

/** POST /webhooks/:id/test */
function testWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.post(
    "/webhooks/:id/test",
    {
      schema: {
        ...op("testWebhook", "Send a signed webhook.test event to the subscription", "SendTestEvent"),
        params: idParams,
        response: {
          200: z.object({ deliveryId: z.string() }).meta({ id: "WebhookTestSent" }),
          ...errorResponses(options.auth, 402, 404, 409),
        },
      },
    },
    async (request) => {
      const sent = await webhooks.sendTestEvent(
        { subscriptionId: request.params.id },
        coreCall(request, options),
      );
      return { deliveryId: sent.deliveryId };
    },
  );
}

/** POST /webhooks/:id/reactivate */
function reactivateWebhookRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.post(
    "/webhooks/:id/reactivate",
    {
      schema: {
        ...op(
          "reactivateWebhook",
          "Reactivate a deactivated subscription; its pending deliveries resume",
          "ReactivateSubscription",
        ),
        params: idParams,
        response: { 200: subscriptionSchema, ...errorResponses(options.auth, 402, 404) },
      },
    },
    async (request) => {
      const done = await webhooks.reactivateSubscription(
        { id: request.params.id },
        coreCall(request, options),
      );
      return subscriptionBody(done.subscription);
    },
  );
}

/** POST /webhooks/:id/rotate-secret */
function rotateWebhookSecretRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.post(
    "/webhooks/:id/rotate-secret",
    {
      schema: {
        ...op(
          "rotateWebhookSecret",
          "Issue a new secret (shown once); the old one keeps signing for 24 h",
          "RotateSecret",
        ),
        params: idParams,
        response: { 200: rotatedSchema, ...errorResponses(options.auth, 402, 404) },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateSecret({ id: request.params.id }, coreCall(request, options));
      const subscription = subscriptionBody(rotated.subscription);
      return {
        id: subscription.id,
        secret: rotated.secret,
        previousSecretExpiresAt: subscription.previousSecretExpiresAt,
      };
    },
  );
}

/** GET /webhooks/:id/deliveries */
function listWebhookDeliveriesRoute({ options, routes, webhooks, op }: WebhookRouteContext): void {
  routes.get(
    "/webhooks/:id/deliveries",
    {
      schema: {
        ...op("listWebhookDeliveries", "Recent deliveries of a subscription, newest first", "ListDeliveries"),
        params: idParams,
        querystring: deliveriesQuery,
        response: { 200: z.array(deliverySchema), ...errorResponses(options.auth, 402, 404) },
      },
    },
    async (request) => {
      const { deliveries } = await webhooks.listDeliveries(
        { subscriptionId: request.params.id, limit: request.query.limit },
        coreCall(request, options),
      );
      return deliveries.map(deliveryBody);
    },
  );
}
