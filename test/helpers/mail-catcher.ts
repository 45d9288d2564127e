import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  body: string;
}

export interface MailCatcher {
  readonly port: number;
  /** Every mail received so far, in order, bodies decoded. */
  readonly mails: ReceivedMail[];
  close(): Promise<void>;
}

/** Quoted-printable of UTF-8 text (raw is the message read byte for byte as latin1). */
function decodeQuotedPrintable(raw: string): string {
  const bytes = raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** A local SMTP peer (smtp-server) on 127.0.0.1 that keeps every mail the service sends. */
export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          body: decodeQuotedPrintable(Buffer.concat(chunks).toString("latin1")),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const address = smtp.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { port, mails, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
