import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Seals webhook signing secrets with AES-256-GCM under MASTER_KEY. They must stay recoverable (the
 * worker signs with them), so they are encrypted rather than hashed. Sealed layout: version byte 1,
 * 12-byte nonce, 16-byte tag, ciphertext.
 */
export interface SecretBox {
  seal(secret: string): Buffer;
  open(sealed: Uint8Array): string;
}

const VERSION = 1;

/** `masterKey`: 32 bytes, base64 or base64url (config MASTER_KEY). */
export function createSecretBox(masterKey: string): SecretBox {
  const key = Buffer.from(masterKey.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  if (key.length !== 32) throw new Error("MASTER_KEY must decode to 32 bytes");
  return {
    seal(secret) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed) {
      const bytes = Buffer.from(sealed);
      if (bytes[0] !== VERSION) throw new Error("unknown sealed-secret version");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(1, 13));
      decipher.setAuthTag(bytes.subarray(13, 29));
      return Buffer.concat([decipher.update(bytes.subarray(29)), decipher.final()]).toString("utf8");
    },
  };
}
