import { createHmac, randomBytes } from "node:crypto";

/** A new signing secret: `whsec_` + 43 base64url characters (256 bits). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** Spec "Signature": hex HMAC-SHA256 of the unmodified raw body keyed with the secret. */
export function signBody(body: string, secret: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

/**
 * The X-service-Signature value: `sha256=<hex>` per valid secret, newest first, comma-separated.
 * Outside a rotation's 24 h overlap there is exactly one, as the spec shows it.
 */
export function signatureHeader(body: string, secrets: readonly string[]): string {
  return secrets.map((secret) => `sha256=${signBody(body, secret)}`).join(",");
}
