import { Code } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import { coreError } from "../errors.js";
import type { Database } from "../store/database.js";
import type { SecretBox } from "./secret-box.js";

/** What the webhook use cases need from the composition. */
export interface WebhookDeps {
  readonly db: Database;
  /** Unset without MASTER_KEY: secrets could not be stored encrypted, so subscriptions are refused. */
  readonly secretBox: SecretBox | undefined;
  readonly publicUrl: string;
  readonly logger: Logger;
  /** The SSRF guard of targets (private addresses allowed by WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  readonly guard: OutboundGuard;
}

export function requireSecretBox(deps: WebhookDeps): SecretBox {
  if (deps.secretBox) return deps.secretBox;
  throw coreError(
    Code.Unavailable,
    ErrorReason.UNAVAILABLE,
    "webhooks are not configured: set MASTER_KEY so signing secrets can be stored encrypted",
  );
}
