import { createHmac, timingSafeEqual } from "node:crypto";
import { writeFile } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { generate } from "selfsigned";

/** One request as the receiver saw it. */
export interface ReceivedWebhook {
  readonly deliveryId: string;
  readonly event: string;
  readonly path: string;
  readonly rawBody: string;
  readonly headers: IncomingHttpHeaders;
  /** Which of the receiver's secrets a signature in the header matched (-1: none). */
  readonly signedWith: number;
  readonly receivedAt: number;
}

export interface Answer {
  readonly status: number;
  /** Wait this long before answering (the 15 s timeout test). */
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
}

export interface HttpsReceiver {
  readonly url: string;
  /** PEM of the self-signed certificate, written to `caFile` for WEBHOOK_CA_FILE. */
  readonly certificate: string;
  readonly caFile: string;
  readonly received: ReceivedWebhook[];
  /** Secrets to verify with, as the receiver of the docs does (current first). */
  secrets: string[];
  answer: (webhook: ReceivedWebhook) => Answer;
  close(): Promise<void>;
}

/**
 * Spec "Signature", as docs/webhooks.md tells receivers to verify: HMAC-SHA256 of the raw body with
 * the secret, compared in constant time with each `sha256=<hex>` of X-service-Signature.
 */
export function verifySignature(rawBody: string, header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(rawBody, "utf8").digest("hex"), "utf8");
  return header.split(",").some((part) => {
    const [scheme, hex] = part.trim().split("=", 2);
    if (scheme !== "sha256" || hex === undefined) return false;
    const given = Buffer.from(hex, "utf8");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * A real HTTPS endpoint on 127.0.0.1 with a certificate generated for this run; the delivering
 * client trusts it only through WEBHOOK_CA_FILE (or the sender's extraCaCertificates).
 */
export async function startHttpsReceiver(directory: string): Promise<HttpsReceiver> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    curve: "P-256",
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  });
  const caFile = join(directory, `receiver-${process.pid}-${Date.now()}.pem`);
  await writeFile(caFile, pems.cert);
  const received: ReceivedWebhook[] = [];
  const receiver: HttpsReceiver = {
    url: "",
    certificate: pems.cert,
    caFile,
    received,
    secrets: [],
    answer: () => ({ status: 204 }),
    close: async () => undefined,
  };
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const signature = req.headers["x-service-signature"];
      const header = Array.isArray(signature) ? signature.join(",") : signature;
      const webhook: ReceivedWebhook = {
        deliveryId: String(req.headers["x-service-delivery"] ?? ""),
        event: String(req.headers["x-service-event"] ?? ""),
        path: req.url ?? "",
        rawBody,
        headers: req.headers,
        signedWith: receiver.secrets.findIndex((s) => verifySignature(rawBody, header, s)),
        receivedAt: Date.now(),
      };
      received.push(webhook);
      const answer = receiver.answer(webhook);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers).end();
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
