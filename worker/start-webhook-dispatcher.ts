import { readFile } from "node:fs/promises";
import type { WebhookConfig } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import type { Database } from "../core/store/database.js";
import { createSecretBox } from "../core/webhooks/secret-box.js";
import { createWebhookSender } from "../core/webhooks/send-webhook.js";
import { createWebhookDispatcher, type WebhookDispatcherOptions } from "./webhook-dispatcher.js";

export interface RunningDispatcher {
  stop(): Promise<void>;
}

/**
 * The webhook dispatcher as a worker process runs it, from configuration: MASTER_KEY opens the
 * signing secrets, WEBHOOK_ALLOW_PRIVATE_TARGETS and WEBHOOK_CA_FILE shape the HTTPS client.
 */
export async function startWebhookDispatcher(
  config: { readonly webhooks: WebhookConfig; readonly masterKey?: string | undefined },
  db: Database,
  logger: Logger,
  overrides: Partial<Pick<WebhookDispatcherOptions, "clock" | "concurrency" | "leaseMs" | "metrics">> & {
    readonly timeoutMs?: number;
  } = {},
): Promise<RunningDispatcher> {
  const { timeoutMs, ...dispatcherOverrides } = overrides;
  const sender = createWebhookSender({
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    extraCaCertificates: config.webhooks.caFile ? await readFile(config.webhooks.caFile, "utf8") : undefined,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  if (!config.masterKey) logger.warn("MASTER_KEY is not set: webhook subscriptions cannot be created");
  const dispatcher = createWebhookDispatcher({
    db,
    logger,
    send: sender.send,
    secretBox: config.masterKey ? createSecretBox(config.masterKey) : undefined,
    ...dispatcherOverrides,
  });
  await dispatcher.start();
  return {
    async stop() {
      await dispatcher.stop();
      sender.close();
    },
  };
}
