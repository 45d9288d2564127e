import { Writable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { createMagicLinkMailer, MAGIC_LINK_LOG_MESSAGE } from "../../core/tenancy/magic-link-mailer.js";
import { freePort } from "../helpers/free-port.js";

// The mailer alone: without SMTP_URL the link goes to the log at warn level (documented); a mail
// server that cannot be reached is UNAVAILABLE (503) with a message that says what to do.

function capturingLogger(lines: string[]) {
  return createLogger(
    "info",
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    }),
  );
}

test("without SMTP_URL the link is written to the log, once, at warn level", async (t) => {
  const lines: string[] = [];
  const mailer = createMagicLinkMailer({ from: "x@example.test", logger: capturingLogger(lines) });
  t.is(mailer.delivery, "log");
  await mailer.send("a@example.test", "http://localhost/api/auth/callback/email?token=abc");
  t.is(lines.length, 1);
  const line = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
  t.like(line, {
    level: 40,
    msg: MAGIC_LINK_LOG_MESSAGE,
    to: "a@example.test",
    signInLink: "http://localhost/api/auth/callback/email?token=abc",
  });
});

test("an unreachable mail server is UNAVAILABLE, and its error is logged without the link", async (t) => {
  const lines: string[] = [];
  const port = await freePort();
  const mailer = createMagicLinkMailer({
    smtpUrl: `smtp://127.0.0.1:${port}`,
    from: "x@example.test",
    logger: capturingLogger(lines),
  });
  const error = await t.throwsAsync(mailer.send("b@example.test", "http://localhost/cb?token=SECRET123"));
  t.is(ConnectError.from(error).code, Code.Unavailable);
  t.regex(error?.message ?? "", /could not be sent; try again later/);
  t.true(lines.length >= 1);
  t.false(lines.some((l) => l.includes("SECRET123")));
  mailer.close();
});
