import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  DeliveryState,
  type WebhookDelivery,
  WebhookDeliverySchema,
  type WebhookService,
} from "../../gen/memory/v1/webhook_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { clientIpKey } from "../auth/principal.js";
import { createSubscription } from "./create-subscription.js";
import { deleteSubscription } from "./delete-subscription.js";
import { getSubscription } from "./get-subscription.js";
import { type DeliveryRow, listDeliveries } from "./list-deliveries.js";
import { listSubscriptions } from "./list-subscriptions.js";
import { reactivateSubscription } from "./reactivate-subscription.js";
import { rotateSecret } from "./rotate-secret.js";
import { sendTestEvent } from "./send-test-event.js";
import { subscriptionMessage } from "./subscription-row.js";
import { updateSubscription } from "./update-subscription.js";
import type { WebhookDeps } from "./webhook-deps.js";

const clientIp = (ctx: HandlerContext) => ctx.values.get(clientIpKey);

const STATE: Readonly<Record<DeliveryRow["state"], DeliveryState>> = {
  pending: DeliveryState.PENDING,
  delivered: DeliveryState.DELIVERED,
  dead: DeliveryState.DEAD,
};

function deliveryMessage(row: DeliveryRow): WebhookDelivery {
  return create(WebhookDeliverySchema, {
    id: row.id,
    subscriptionId: row.subscription_id,
    event: row.event,
    state: STATE[row.state],
    attempts: row.attempts,
    ...(row.last_status === null ? {} : { lastStatus: row.last_status }),
    ...(row.next_attempt_at ? { nextAttemptAt: timestampFromDate(row.next_attempt_at) } : {}),
    createdAt: timestampFromDate(row.created_at),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    occurredAt: timestampFromDate(row.occurred_at),
    ...(row.last_attempt_at ? { lastAttemptAt: timestampFromDate(row.last_attempt_at) } : {}),
  });
}

/** Outgoing webhook subscriptions (spec "Events"); delivery itself runs in the worker. */
export function createWebhookService(deps: WebhookDeps): ServiceImpl<typeof WebhookService> {
  return {
    async createSubscription(req, ctx) {
      const created = await createSubscription(deps, tenantCaller(ctx), {
        url: req.url,
        eventKinds: req.eventKinds,
        description: req.description,
        ip: clientIp(ctx),
      });
      return { subscription: subscriptionMessage(created.subscription), secret: created.secret };
    },
    async listSubscriptions(_req, ctx) {
      const rows = await listSubscriptions(deps, tenantCaller(ctx));
      return { subscriptions: rows.map((row) => subscriptionMessage(row)) };
    },
    async getSubscription(req, ctx) {
      return { subscription: subscriptionMessage(await getSubscription(deps, tenantCaller(ctx), req)) };
    },
    async updateSubscription(req, ctx) {
      const row = await updateSubscription(deps, tenantCaller(ctx), {
        id: req.id,
        url: req.url,
        eventKinds: req.eventKinds,
        description: req.description,
        ip: clientIp(ctx),
      });
      return { subscription: subscriptionMessage(row) };
    },
    async deleteSubscription(req, ctx) {
      await deleteSubscription(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx) });
      return { deleted: true };
    },
    async reactivateSubscription(req, ctx) {
      const row = await reactivateSubscription(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx) });
      return { subscription: subscriptionMessage(row) };
    },
    async sendTestEvent(req, ctx) {
      const deliveryId = await sendTestEvent(deps, tenantCaller(ctx), { subscriptionId: req.subscriptionId });
      return { deliveryId };
    },
    async listDeliveries(req, ctx) {
      const rows = await listDeliveries(deps, tenantCaller(ctx), {
        subscriptionId: req.subscriptionId,
        limit: req.limit,
      });
      return { deliveries: rows.map(deliveryMessage) };
    },
    async rotateSecret(req, ctx) {
      const rotated = await rotateSecret(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx) });
      return { subscription: subscriptionMessage(rotated.subscription), secret: rotated.secret };
    },
  };
}
