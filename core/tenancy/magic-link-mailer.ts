import { Code } from "@connectrpc/connect";
import type nodemailer from "nodemailer";
import type { Logger } from "../../config/logger.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { requireOnUse } from "../../lib/require-on-use.js";
import { coreError } from "../errors.js";

/** Delivers a sign-in link to an address. */
export interface MagicLinkMailer {
  /** "smtp" or "log": how links leave the service (GetSession and docs mention it). */
  readonly delivery: "smtp" | "log";
  send(to: string, link: string): Promise<void>;
  /**
   * Any other plain-text mail through the same transport (billing's cancellation confirmations).
   * Without SMTP the message is written to the log at warn level; a failed delivery is UNAVAILABLE.
   */
  sendMessage(message: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/** The log line of a plain-text mail when SMTP_URL is not set. */
export const MAIL_LOG_MESSAGE = "SMTP_URL is not set: mail written to the log instead of sent";

export interface MagicLinkMailerOptions {
  readonly smtpUrl?: string | undefined;
  readonly from: string;
  readonly logger: Logger;
}

/** The message of the one log line that carries a secret on purpose (docs/auth.md, tests). */
export const MAGIC_LINK_LOG_MESSAGE =
  "SMTP_URL is not set: sign-in link written to the log instead of mailed (secret, single use, valid 24 h)";

/**
 * Mails sign-in links through SMTP (nodemailer, SMTP_URL). Without SMTP_URL the link is written to
 * the log at warn level, so a self-hosted instance without mail can still sign in: this is the only
 * log line that ever contains a secret, and it is documented as such in docs/auth.md.
 */
export function createMagicLinkMailer(options: MagicLinkMailerOptions): MagicLinkMailer {
  const { logger } = options;
  if (!options.smtpUrl) {
    return {
      delivery: "log",
      async send(to, link) {
        logger.warn({ to, signInLink: link }, MAGIC_LINK_LOG_MESSAGE);
      },
      async sendMessage({ to, subject, text }) {
        logger.warn({ to, subject, text }, MAIL_LOG_MESSAGE);
      },
      close() {},
    };
  }
  // Loaded only with SMTP_URL set: the instance that logs its links never holds nodemailer's 39
  // modules (≈ 3 MB of heap, docs/observability.md "Idle memory").
  const mailer = requireOnUse("nodemailer") as typeof nodemailer;
  const transport = mailer.createTransport(
    {
      url: options.smtpUrl,
      // A hung mail server must not hold a sign-in request for minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    },
    { from: options.from },
  );
  return {
    delivery: "smtp",
    async send(to, link) {
      try {
        await transport.sendMail({
          to,
          subject: "Your sign-in link",
          text: [
            "Hello,",
            "",
            "follow this link to sign in to the memory service:",
            "",
            link,
            "",
            "The link works once and expires in 24 hours. If you did not ask for it, ignore this mail.",
          ].join("\n"),
        });
      } catch (error) {
        // The error of a mail server never carries the link; log it without the message body.
        logger.error({ err: error, to }, "sending the sign-in mail failed");
        throw coreError(
          Code.Unavailable,
          ErrorReason.UNAVAILABLE,
          "the sign-in mail could not be sent; try again later",
          {
            cause: error,
          },
        );
      }
    },
    async sendMessage({ to, subject, text }) {
      try {
        await transport.sendMail({ to, subject, text });
      } catch (error) {
        logger.error({ err: error, to, subject }, "sending a mail failed");
        throw coreError(
          Code.Unavailable,
          ErrorReason.UNAVAILABLE,
          "the mail could not be sent; try again later",
          {
            cause: error,
          },
        );
      }
    },
    close() {
      transport.close();
    },
  };
}
