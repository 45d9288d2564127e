import { invalidArgument } from "../errors.js";
import { type CancellationClaim, issueCancellationToken } from "./cancellation-token.js";
import { type BillingDeps, requirePayments } from "./payments.js";

export const REQUEST_RECEIVED_MESSAGE =
  "Bitte bestätigen Sie Ihre Kündigung mit „jetzt kündigen“ (POST /api/kuendigung mit confirmationToken). / " +
  "Please confirm your cancellation with “cancel now” (POST /api/kuendigung with confirmationToken).";

/** A calendar date YYYY-MM-DD that exists and is not in the past (UTC). */
function checkWishedDate(value: string, now: Date): void {
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw invalidArgument("wishedDate", "wishedDate: not a calendar date (YYYY-MM-DD)");
  }
  if (value < now.toISOString().slice(0, 10)) {
    throw invalidArgument("wishedDate", "wishedDate: must be today or later");
  }
}

/**
 * Step 1 of the Kündigung (§312k BGB): the consumer names the contract (address, workspace), the
 * kind, an optional reason and wished date. Nothing is looked up or stored: the answer is the same
 * for every input, with a signed one-time token for the confirmation step.
 */
export function requestCancellation(
  deps: BillingDeps,
  input: Omit<CancellationClaim, "nonce" | "expiresAt">,
  now = new Date(),
): { message: string; confirmationToken: string; expiresAt: Date } {
  const payments = requirePayments(deps);
  if (input.wishedDate !== undefined) checkWishedDate(input.wishedDate, now);
  if (input.kind === "extraordinary" && !input.reason?.trim()) {
    throw invalidArgument("reason", "reason: an extraordinary cancellation needs its reason");
  }
  const { token, claim } = issueCancellationToken(payments.cancellationKey, input, now.getTime());
  return {
    message: REQUEST_RECEIVED_MESSAGE,
    confirmationToken: token,
    expiresAt: new Date(claim.expiresAt * 1000),
  };
}
