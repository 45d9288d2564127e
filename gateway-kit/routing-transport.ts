import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ContextValues,
  type StreamResponse,
  type Transport,
  type UnaryResponse,
} from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { type CoreEndpoint, CoreRouter, type RoutingTransportOptions } from "./core-router.js";

export type { CoreEndpoint, RoutingTransportOptions } from "./core-router.js";

/** What a call's metadata may be given as (the DOM's HeadersInit, which Node's types lack by name). */
type HeaderInit = ConstructorParameters<typeof Headers>[0];

/**
 * A Connect transport over several cores that sends each workspace's calls to one of them (ADR
 * 0380): a call's route key is its workspace's route once core has named it for the call's
 * credential (ROUTE_HEADER, remembered by a SHA-256 of the credential), else the credential's own
 * hash; calls without credentials carry no workspace state and are spread by a counter. The key's
 * rendezvous order picks the core and, when that core cannot be reached, the next one — the one the
 * workspace moves to while it is gone. An endpoint that refused a call is tried last for `downForMs`.
 *
 * Only a call core never received moves on (UNAVAILABLE without any response: connection refused,
 * unresolvable host, a stream the server refused): it cannot have run, so a write is not done twice.
 * A call cut off after it reached a core (the core died mid-call) fails as it did before; streams
 * whose request messages were already read fail over only when they can be replayed (server
 * streaming: one request message).
 */
export function createRoutingTransport(options: RoutingTransportOptions): Transport {
  const router = new CoreRouter(options);
  const attempt = <R>(
    header: HeaderInit | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    call: (endpoint: CoreEndpoint, header: Headers, timeoutMs: number | undefined) => Promise<R>,
    responseHeader: (response: R) => Headers,
    mayRetry: () => boolean,
  ) =>
    attemptInOrder(router, options.onFailover, { header, signal, timeoutMs }, call, responseHeader, mayRetry);

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeaderInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      return attempt(
        header,
        signal,
        timeoutMs,
        (endpoint, h, ms) => endpoint.transport.unary(method, signal, ms, h, input, contextValues),
        (response) => response.header,
        () => true,
      );
    },
    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeaderInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      // A server stream's one request message is read first, so every attempt can send it; a client
      // or bidi stream can move on only while the transport has not begun to read its input.
      const replayable = method.methodKind === "server_streaming" ? await collect(input) : undefined;
      let consumed = false;
      const inputOf = (): AsyncIterable<MessageInitShape<I>> =>
        replayable !== undefined
          ? createAsyncIterable(replayable)
          : watchReading(input, () => {
              consumed = true;
            });
      return attempt(
        header,
        signal,
        timeoutMs,
        (endpoint, h, ms) => endpoint.transport.stream(method, signal, ms, h, inputOf(), contextValues),
        (response) => response.header,
        () => !consumed,
      );
    },
  };
}

/**
 * UNAVAILABLE with no response metadata at all: the call failed before any core answered it —
 * connect-node reports a refused connection, an unresolvable host and a refused HTTP/2 stream this
 * way. A core that answers UNAVAILABLE itself (its database is down) sends headers with the error
 * (at least a content type and its request id): it ran the call, and another core would not help.
 */
export function neverReachedCore(error: ConnectError): boolean {
  if (error.code !== Code.Unavailable) return false;
  for (const _ of error.metadata.keys()) return false;
  return true;
}

/**
 * The call on each core of its order until one answers; only a call no core received (see
 * neverReachedCore) moves on, while `mayRetry`, the deadline and the signal allow it.
 */
async function attemptInOrder<R>(
  router: CoreRouter,
  onFailover: RoutingTransportOptions["onFailover"],
  {
    header,
    signal,
    timeoutMs,
  }: {
    readonly header: HeaderInit | undefined;
    readonly signal: AbortSignal | undefined;
    readonly timeoutMs: number | undefined;
  },
  call: (endpoint: CoreEndpoint, header: Headers, timeoutMs: number | undefined) => Promise<R>,
  responseHeader: (response: R) => Headers,
  mayRetry: () => boolean,
): Promise<R> {
  const headers = new Headers(header);
  const { credential, order } = router.route(headers);
  const deadline = timeoutMs === undefined ? undefined : router.now() + timeoutMs;
  const remaining = () => (deadline === undefined ? undefined : Math.max(1, deadline - router.now()));
  let lastError: unknown;
  for (const [i, url] of order.entries()) {
    const endpoint = router.endpoint(url);
    if (endpoint === undefined) continue;
    try {
      const response = await call(endpoint, new Headers(headers), remaining());
      router.answered(url);
      router.learn(credential, responseHeader(response));
      return response;
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (!neverReachedCore(connectError)) {
        router.learn(credential, connectError.metadata);
        throw error;
      }
      router.refused(url);
      lastError = error;
      const last = i === order.length - 1;
      const expired = deadline !== undefined && router.now() >= deadline;
      if (last || expired || signal?.aborted === true || !mayRetry()) throw error;
      onFailover?.({ from: url, error: connectError });
    }
  }
  throw lastError;
}

async function collect<T>(input: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of input) items.push(item);
  return items;
}

/** The input, telling `onRead` when the transport starts reading it (a message may then be in flight). */
function watchReading<T>(input: AsyncIterable<T>, onRead: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      onRead();
      return input[Symbol.asyncIterator]();
    },
  };
}
