import { createHmac } from "node:crypto";
import test from "ava";
import fc from "fast-check";
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from "../../core/webhooks/delivery-rules.js";
import { createSecretBox } from "../../core/webhooks/secret-box.js";
import { generateWebhookSecret, signatureHeader, signBody } from "../../core/webhooks/sign-body.js";
import { refusedAddressReason } from "../../core/webhooks/target-address.js";
import { verifySignature } from "./https-receiver.js";
import { MASTER_KEY } from "./webhook-test-kit.js";

// The pure parts of delivery: signature (spec "Signature"), sealing of secrets, the schedule
// (spec "Delivery rules" 2) and the SSRF guard's address rule.

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

test("private, loopback, link-local and multicast addresses are refused; public ones pass", (t) => {
  for (const [address, reason] of [
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.10", "private"],
    ["169.254.169.254", "link-local"],
    ["224.0.0.251", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fd12:3456::1", "private (unique local)"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
  ] as const) {
    t.is(refusedAddressReason(address), reason, address);
  }
  for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:1.1.1.1"]) {
    t.is(refusedAddressReason(address), undefined, address);
  }
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (a, b) => {
      return (
        refusedAddressReason(`10.${a}.${b}.1`) === "private" &&
        refusedAddressReason(`127.${a}.${b}.1`) === "loopback"
      );
    }),
  );
});
