import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import { isConnectionError } from "../error-interceptor.js";
import { internalError, unavailable } from "../errors.js";

/**
 * Text is sent once this much has been written (counted in UTF-16 code units), and no message is
 * larger than this many bytes: large enough that per-message overhead does not matter, small
 * enough that a message never holds more than a sliver of a large tenant.
 */
export const CHUNK_SIZE = 64 * 1024;

/** Appends text to the stream; resolves when the caller may write more (backpressure). */
export type WriteText = (text: string) => Promise<void>;

/** The consumer went away (client disconnected, stream returned): the producer must stop. */
class StreamStopped extends Error {}

interface Offer {
  readonly chunk: Uint8Array;
  readonly taken: () => void;
  readonly refused: (reason: Error) => void;
}

type Outcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/**
 * Runs `produce`, which writes text from inside a database transaction (cursor reads), and yields
 * that text as byte chunks for a server stream. A transaction lives inside a callback, and a
 * generator cannot yield from a callback, so the two meet at a one-chunk hand-off: the producer
 * waits until the previous chunk was taken, so a large export never piles up in memory.
 *
 * When the consumer stops early (client gone: `return()` on the stream, or `signal` aborted) the
 * producer's next write throws, its transaction rolls back and its connection goes back to the
 * pool before this generator finishes.
 *
 * Failures are modelled here as the error interceptor does for unary calls (it only sees a
 * handler's return value, not failures while its stream is consumed): a lost database is
 * UNAVAILABLE, anything unexpected is logged and INTERNAL, never a driver message on the wire.
 */
export async function* streamFromTransaction(options: {
  readonly produce: (write: WriteText) => Promise<void>;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** "TenancyService/ExportTenant", for the log. */
  readonly method: string;
}): AsyncGenerator<Uint8Array> {
  let buffered: string[] = [];
  let bufferedSize = 0;
  let offered: Offer | undefined;
  let outcome: Outcome | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;

  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const stop = () => {
    stopped = true;
    offered?.refused(new StreamStopped("the export stream was closed by its consumer"));
    offered = undefined;
  };
  const handOver = (chunk: Uint8Array) =>
    new Promise<void>((taken, refused) => {
      if (stopped) return refused(new StreamStopped("the export stream was closed by its consumer"));
      offered = { chunk, taken, refused };
      notify();
    });
  const flush = async () => {
    if (bufferedSize === 0) return;
    const bytes = Buffer.from(buffered.join(""), "utf8");
    buffered = [];
    bufferedSize = 0;
    // One large record (a 10 MB document) is sent as several messages: gRPC clients refuse
    // messages above 4 MB by default. The pieces may split a UTF-8 character; the stream is
    // defined as consecutive bytes (tenancy_service.proto), so consumers join before decoding.
    for (let start = 0; start < bytes.length; start += CHUNK_SIZE) {
      await handOver(bytes.subarray(start, start + CHUNK_SIZE));
    }
  };
  const write: WriteText = async (text) => {
    if (stopped) throw new StreamStopped("the export stream was closed by its consumer");
    buffered.push(text);
    bufferedSize += text.length;
    if (bufferedSize >= CHUNK_SIZE) await flush();
  };

  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  const running = options
    .produce(write)
    .then(flush)
    .then(
      () => {
        outcome = { ok: true };
      },
      (error: unknown) => {
        outcome = { ok: false, error };
      },
    )
    .finally(notify);

  try {
    for (;;) {
      if (offered) {
        const { chunk, taken } = offered;
        offered = undefined;
        // Let the producer read the next batch while this chunk is being sent.
        taken();
        yield chunk;
        continue;
      }
      if (outcome) {
        if (!outcome.ok) throw modelledError(outcome.error, options);
        return;
      }
      await new Promise<void>((resume) => {
        wake = resume;
      });
    }
  } finally {
    stop();
    options.signal.removeEventListener("abort", stop);
    await running;
  }
}

function modelledError(error: unknown, options: { logger: Logger; method: string }): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof StreamStopped) return new ConnectError(error.message, Code.Canceled);
  if (isConnectionError(error)) {
    options.logger.warn({ err: error, method: options.method }, "dependency unavailable");
    return unavailable("the database is unavailable; retry shortly", error);
  }
  options.logger.error({ err: error, method: options.method }, "unhandled error in core");
  return internalError(error);
}
