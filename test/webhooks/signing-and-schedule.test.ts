import { createHmac } from "node:crypto";
import test from "ava";
import fc from "fast-check";
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from "../../core/webhooks/delivery-rules.js";
import { createSecretBox } from "../../core/webhooks/secret-box.js";
import { generateWebhookSecret, signatureHeader, signBody } from "../../core/webhooks/sign-body.js";
import { verifySignature } from "./https-receiver.js";
import { MASTER_KEY } from "./webhook-test-kit.js";

// The pure parts of delivery: signature (spec "Signature"), sealing of secrets and the schedule
// (spec "Delivery rules" 2). The SSRF guard's address rules are the outbound guard's, tested in
// test/lib/address-spellings.test.ts.

test("the signature is the hex HMAC-SHA256 of the raw body, verifiable in constant time", (t) => {
  fc.assert(
    fc.property(fc.string(), fc.string({ minLength: 1 }), (body, secret) => {
      const hex = createHmac("sha256", secret).update(body, "utf8").digest("hex");
      return (
        signBody(body, secret) === hex &&
        signatureHeader(body, [secret]) === `sha256=${hex}` &&
        verifySignature(body, `sha256=${hex}`, secret) &&
        !verifySignature(`${body} `, `sha256=${hex}`, secret)
      );
    }),
  );
  t.pass();
});

test("secrets are whsec_ + 43 base64url characters and never repeat", (t) => {
  const secrets = new Set(Array.from({ length: 100 }, generateWebhookSecret));
  t.is(secrets.size, 100);
  for (const s of secrets) t.regex(s, /^whsec_[A-Za-z0-9_-]{43}$/);
});

test("sealed secrets open only with the same MASTER_KEY, and tampering is detected", (t) => {
  const box = createSecretBox(MASTER_KEY);
  const secret = generateWebhookSecret();
  const sealed = box.seal(secret);
  t.false(sealed.toString("latin1").includes(secret), "not stored in clear");
  t.is(box.open(sealed), secret);
  const other = createSecretBox(Buffer.alloc(32, 7).toString("base64"));
  t.throws(() => other.open(sealed));
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 1;
  t.throws(() => box.open(tampered));
});

test("six attempts: the schedule's waits, then dead", (t) => {
  t.deepEqual(RETRY_DELAYS_MS, [0, 60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
  t.is(MAX_ATTEMPTS, 6);
  const at = new Date("2026-06-11T10:00:00.000Z");
  t.is(nextAttemptAt(1, at)?.toISOString(), "2026-06-11T10:01:00.000Z");
  t.is(nextAttemptAt(5, at)?.toISOString(), "2026-06-11T22:00:00.000Z");
  t.is(nextAttemptAt(6, at), undefined);
});
