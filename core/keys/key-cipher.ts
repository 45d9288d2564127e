import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** A stored provider key as sealed by {@link sealKey}: AES-256-GCM ciphertext, nonce and tag. */
export interface SealedKey {
  readonly ciphertext: Uint8Array;
  readonly nonce: Uint8Array;
  readonly authTag: Uint8Array;
  /** Which master key sealed it ({@link masterKeyId}). */
  readonly masterKeyId: string;
}

/** The 32-byte master key (MASTER_KEY) with its public fingerprint. */
export interface MasterKey {
  readonly key: Buffer;
  readonly id: string;
}

const NONCE_BYTES = 12;

/**
 * Parses MASTER_KEY: 32 bytes, base64 or base64url (config/config.ts has checked the form). The
 * fingerprint (first 16 hex of SHA-256) names the key in stored records without revealing it.
 */
export function parseMasterKey(encoded: string): MasterKey {
  const key = Buffer.from(encoded.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  if (key.length !== 32) throw new RangeError("MASTER_KEY must decode to exactly 32 bytes");
  return { key, id: masterKeyId(key) };
}

export function masterKeyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/**
 * AES-256-GCM with a fresh random 96-bit nonce per record and the tenant id as associated data, so a
 * record copied into another tenant's row does not decrypt.
 */
export function sealKey(master: MasterKey, tenantId: string, clear: string): SealedKey {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", master.key, nonce);
  cipher.setAAD(Buffer.from(tenantId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(clear, "utf8"), cipher.final()]);
  return { ciphertext, nonce, authTag: cipher.getAuthTag(), masterKeyId: master.id };
}

/** Opens a sealed key; throws when the master key, the tenant or the bytes do not match. */
export function openKey(master: MasterKey, tenantId: string, sealed: Omit<SealedKey, "masterKeyId">): string {
  const decipher = createDecipheriv("aes-256-gcm", master.key, Buffer.from(sealed.nonce));
  decipher.setAAD(Buffer.from(tenantId, "utf8"));
  decipher.setAuthTag(Buffer.from(sealed.authTag));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext)), decipher.final()]).toString("utf8");
}

/** "…3f9a": never more than the last four characters (shorter keys show less). */
export function maskKey(last4: string): string {
  return `…${last4}`;
}

export function lastFour(clear: string): string {
  return clear.length >= 16 ? clear.slice(-4) : clear.length >= 8 ? clear.slice(-2) : "";
}
