import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

/** What the fake answers: a status with JSON or raw text, or "hang" — never answer (until closed). */
export type Reply =
  | {
      readonly status?: number;
      readonly json?: unknown;
      readonly text?: string;
      readonly headers?: Record<string, string>;
    }
  | "hang";

export interface FakeServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /**
   * When each request was in the server's hands: from its arrival to its answer's last byte written,
   * as epoch milliseconds (performance.timeOrigin + now, comparable across processes). Benchmarks use
   * it for "the fake server's own time".
   */
  readonly busy: { start: number; end: number }[];
  close(): Promise<void>;
}

const epochNow = () => performance.timeOrigin + performance.now();

/** A local HTTP server scripted per request, standing in for Ollama / TEI / OpenAI / Cohere / Jina. */
export async function startFakeServer(
  handle: (request: RecordedRequest, index: number) => Reply | Promise<Reply>,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const busy: { start: number; end: number }[] = [];
  const server = createServer(async (req, res) => {
    const start = epochNow();
    res.on("finish", () => busy.push({ start, end: epochNow() }));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // keep the raw text
    }
    const request: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
    };
    requests.push(request);
    const reply = await handle(request, requests.length - 1);
    if (reply === "hang") return;
    const text = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    busy,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An OpenAI-style embeddings answer with one deterministic vector per input (its char codes, padded). */
export function embeddingsReply(
  inputs: readonly string[],
  dim: number,
  order: "in-order" | "reversed" = "in-order",
) {
  const data = inputs.map((input, index) => ({
    object: "embedding",
    index,
    embedding: fakeVector(input, dim),
  }));
  return { object: "list", model: "fake", data: order === "reversed" ? data.reverse() : data };
}

export function fakeVector(input: string, dim: number): number[] {
  return Array.from(
    { length: dim },
    (_, i) => ((input.charCodeAt(i % Math.max(1, input.length)) || 1) % 17) + i / 10,
  );
}

export function inputsOf(request: RecordedRequest): string[] {
  const body = request.body as { input?: unknown };
  return Array.isArray(body.input) ? body.input.map(String) : [];
}
