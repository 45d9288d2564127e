import { Readable } from "node:stream";

/**
 * A server-streaming core call as an HTTP body. The first chunk is awaited before anything is
 * sent, so a refusal (401, 402 plan gate, 501) still becomes a proper status and error body; a
 * failure after that can only cut the response short, which the client sees as a broken transfer
 * rather than a truncated file that looks complete.
 */
export async function streamedBody(chunks: AsyncIterable<{ chunk: Uint8Array }>): Promise<Readable> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* rest(): AsyncGenerator<Uint8Array> {
    try {
      if (first.done) return;
      yield first.value.chunk;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value.chunk;
      }
    } finally {
      // The client went away (the body stream was destroyed) or the stream ended: either way end
      // the core call, which cancels it when it is still running.
      await iterator.return?.();
    }
  }
  return Readable.from(rest(), { objectMode: false });
}
