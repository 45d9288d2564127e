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
import { ROUTE_HEADER } from "../lib/gateway-metadata.js";
import { rendezvousOrder } from "./rendezvous.js";
import { createRouteCache, credentialKeyOf } from "./route-cache.js";

/** What a call's metadata may be given as (the DOM's HeadersInit, which Node's types lack by name). */
type HeaderInit = ConstructorParameters<typeof Headers>[0];

/** One core process a gateway can reach, with its own gRPC transport (HTTP/2 connection). */
export interface CoreEndpoint {
  readonly url: string;
  readonly transport: Transport;
}

export interface RoutingTransportOptions {
  readonly endpoints: readonly CoreEndpoint[];
  /** How long an endpoint that refused a call is tried last (default 3 s). */
  readonly downForMs?: number;
  /** How many credentials' workspace routes are remembered (default 10,000; ≈ 100 bytes each). */
  readonly routeCacheSize?: number;
  /** Told when a call leaves an endpoint for the next one in its order. */
  readonly onFailover?: (event: { readonly from: string; readonly error: ConnectError }) => void;
  readonly now?: () => number;
}

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
  const endpoints = new Map(options.endpoints.map((e) => [e.url, e]));
  if (endpoints.size === 0) throw new Error("a routing transport needs at least one core endpoint");
  const urls = [...endpoints.keys()];
  const downUntil = new Map<string, number>();
  const downForMs = options.downForMs ?? 3000;
  const now = options.now ?? Date.now;
  const routes = createRouteCache(options.routeCacheSize ?? 10_000);
  let anonymousCalls = 0;

  const keyOf = (credential: string | undefined) => {
    if (credential !== undefined) return routes.get(credential) ?? `credential\0${credential}`;
    anonymousCalls = (anonymousCalls + 1) % 1_000_000;
    return `anonymous\0${anonymousCalls}`;
  };
  const route = (header: Headers) => {
    const credential = credentialKeyOf(header);
    const key = keyOf(credential);
    // The key's rendezvous order, with endpoints marked down moved to the end (still tried: a fleet
    // whose every core just failed is tried again rather than refused outright).
    const order = rendezvousOrder(key, urls);
    const at = now();
    const up = order.filter((u) => (downUntil.get(u) ?? 0) <= at);
    const down = order.filter((u) => (downUntil.get(u) ?? 0) > at);
    return { credential, order: [...up, ...down] };
  };
  const learn = (credential: string | undefined, header: Headers) => {
    const named = header.get(ROUTE_HEADER);
    if (credential !== undefined && named !== null) routes.set(credential, `route\0${named}`);
  };
  const remaining = (deadline: number | undefined) =>
    deadline === undefined ? undefined : Math.max(1, deadline - now());

  async function attempt<R>(
    header: HeaderInit | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    call: (endpoint: CoreEndpoint, header: Headers, timeoutMs: number | undefined) => Promise<R>,
    responseHeader: (response: R) => Headers,
    mayRetry: () => boolean,
  ): Promise<R> {
    const headers = new Headers(header);
    const { credential, order } = route(headers);
    const deadline = timeoutMs === undefined ? undefined : now() + timeoutMs;
    let lastError: unknown;
    for (const [i, url] of order.entries()) {
      const endpoint = endpoints.get(url);
      if (endpoint === undefined) continue;
      try {
        const response = await call(endpoint, new Headers(headers), remaining(deadline));
        downUntil.delete(url);
        learn(credential, responseHeader(response));
        return response;
      } catch (error) {
        const connectError = ConnectError.from(error);
        if (!neverReachedCore(connectError)) {
          learn(credential, connectError.metadata);
          throw error;
        }
        downUntil.set(url, now() + downForMs);
        lastError = error;
        const last = i === order.length - 1;
        const expired = deadline !== undefined && now() >= deadline;
        if (last || expired || signal?.aborted === true || !mayRetry()) throw error;
        options.onFailover?.({ from: url, error: connectError });
      }
    }
    throw lastError;
  }

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
