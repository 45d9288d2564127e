import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What step 1 of the Kündigung names, carried signed to step 2. */
export interface CancellationClaim {
  readonly email: string;
  readonly workspace: string;
  readonly kind: "ordinary" | "extraordinary";
  readonly reason?: string;
  /** YYYY-MM-DD */
  readonly wishedDate?: string;
  /** Random; the unique key of cancellations makes each token usable once. */
  readonly nonce: string;
  /** Unix seconds. */
  readonly expiresAt: number;
}

/** How long the confirmation step may follow the first. */
export const CONFIRMATION_TTL_SECONDS = 30 * 60;

const sign = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest("base64url");

/**
 * The confirmation token between the two steps: base64url(JSON claim) "." HMAC-SHA256. Stateless,
 * so step 1 stores nothing for anyone (and answers alike whether or not the contract exists); a
 * cross-site form post cannot skip step 1, because step 2 needs the token step 1 returned.
 */
export function issueCancellationToken(
  key: Buffer,
  claim: Omit<CancellationClaim, "nonce" | "expiresAt">,
  now = Date.now(),
): { token: string; claim: CancellationClaim } {
  const full: CancellationClaim = {
    ...claim,
    nonce: randomBytes(18).toString("base64url"),
    expiresAt: Math.floor(now / 1000) + CONFIRMATION_TTL_SECONDS,
  };
  const body = Buffer.from(JSON.stringify(full), "utf8").toString("base64url");
  return { token: `${body}.${sign(key, body)}`, claim: full };
}

/** The claim of a valid, unexpired token; undefined for anything else. */
export function readCancellationToken(
  key: Buffer,
  token: string,
  now = Date.now(),
): CancellationClaim | undefined {
  const [body, mac, extra] = token.split(".");
  if (!body || !mac || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(key, body));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  let claim: CancellationClaim;
  try {
    claim = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as CancellationClaim;
  } catch {
    return undefined;
  }
  if (typeof claim.expiresAt !== "number" || claim.expiresAt * 1000 < now) return undefined;
  if (
    typeof claim.email !== "string" ||
    typeof claim.workspace !== "string" ||
    typeof claim.nonce !== "string"
  ) {
    return undefined;
  }
  return claim;
}
