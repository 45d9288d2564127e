import type { Database } from "../store/database.js";
import type { ClaimedDelivery } from "./claim-due-deliveries.js";
import { type AttemptResult, recordAttempt } from "./record-attempt.js";
import type { RecordSuccess } from "./record-successes.js";
import type { SecretBox } from "./secret-box.js";
import type { SendWebhook } from "./send-webhook.js";
import { signatureHeader } from "./sign-body.js";

export const USER_AGENT = "service-Webhook/1.0";

export interface AttemptDeps {
  readonly db: Database;
  readonly secretBox: SecretBox;
  readonly send: SendWebhook;
  readonly clock: () => Date;
  /** Records successes in batches (the dispatcher's); unset: each on its own. */
  readonly recordSuccess?: RecordSuccess;
}

/** The secrets that sign now: the current one, plus the previous one during its 24 h overlap. */
export function signingSecrets(box: SecretBox, claimed: ClaimedDelivery, now: Date): string[] {
  const secrets = [box.open(claimed.secret_sealed)];
  const expires = claimed.previous_secret_expires_at;
  if (claimed.previous_secret_sealed && expires && expires > now) {
    secrets.push(box.open(claimed.previous_secret_sealed));
  }
  return secrets;
}

/** One attempt of a claimed delivery: sign, POST (spec "Delivery" headers), record the outcome. */
export async function attemptDelivery(deps: AttemptDeps, claimed: ClaimedDelivery): Promise<AttemptResult> {
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-service-Event": claimed.event,
    "X-service-Delivery": claimed.id,
    "X-service-Signature": signatureHeader(
      claimed.body,
      signingSecrets(deps.secretBox, claimed, deps.clock()),
    ),
  };
  const outcome = await deps.send({ url: claimed.url, body: claimed.body, headers });
  const finishedAt = deps.clock();
  if (outcome.ok && deps.recordSuccess)
    return deps.recordSuccess({ claimed, status: outcome.status, finishedAt });
  return recordAttempt(deps.db, claimed, outcome, finishedAt);
}
