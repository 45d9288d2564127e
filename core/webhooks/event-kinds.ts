/** The event kinds a subscription can select (spec "Events"). */
export const WEBHOOK_EVENT_KINDS = ["memory.created", "memory.updated", "webhook.test"] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export function isWebhookEventKind(kind: string): kind is WebhookEventKind {
  return (WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind);
}
