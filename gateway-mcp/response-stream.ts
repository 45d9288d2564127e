import type { FastifyReply } from "fastify";
import { sseEvent } from "./sse-event.js";

/**
 * The answer to one POST as a Streamable HTTP event stream opened only when needed: a 2025-11-25
 * tools/call that elicits sends its elicitation/create request first, then the result (2025-11-25
 * transport "Sending Messages": requests related to the originating request on its stream).
 */
export class ResponseStream {
  private opened = false;

  constructor(private readonly reply: FastifyReply) {}

  get isOpen(): boolean {
    return this.opened;
  }

  write(message: object): void {
    if (!this.opened) {
      this.reply.hijack();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.reply.getHeaders())) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
      }
      this.reply.raw.writeHead(200, {
        ...headers,
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      });
      this.opened = true;
    }
    this.reply.raw.write(sseEvent(JSON.stringify(message)));
  }

  end(message: object): FastifyReply {
    this.write(message);
    this.reply.raw.end();
    return this.reply;
  }

  /** Calls `listener` if the client goes away before the stream ended; returns the unsubscribe. */
  onClose(listener: () => void): () => void {
    this.reply.raw.on("close", listener);
    return () => this.reply.raw.off("close", listener);
  }
}
