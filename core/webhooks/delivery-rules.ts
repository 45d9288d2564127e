/**
 * The numbers of the spec's "Delivery rules" and Limits, in one place. The schedule is the wait
 * before each attempt, counted from the end of the previous failed one: attempt 1 at once, attempt 2
 * one minute after attempt 1 failed, … attempt 6 twelve hours after attempt 5; a sixth failure is
 * dead. Spacing from the previous attempt keeps the intervals when a worker outage delays one.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  0,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  12 * 3_600_000,
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** Consecutive failed attempts (over all deliveries) after which a subscription is deactivated. */
export const DEACTIVATE_AFTER_FAILURES = 20;

/** Success is a 2xx answer within this time; anything slower is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export const MAX_BODY_BYTES = 1_000_000;

export const MAX_URL_LENGTH = 2048;

/** How long a rotated-out secret keeps signing deliveries. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/**
 * When the attempt after `attemptsMade` failed attempts is due, or undefined when the delivery is
 * dead (six failures).
 */
export function nextAttemptAt(attemptsMade: number, failedAt: Date): Date | undefined {
  const delay = RETRY_DELAYS_MS[attemptsMade];
  return delay === undefined ? undefined : new Date(failedAt.getTime() + delay);
}
