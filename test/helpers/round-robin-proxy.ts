import type { AddressInfo, Socket } from "node:net";
import { connect, createServer } from "node:net";

/**
 * A layer-4 load balancer for tests: each client connection goes to the next upstream in turn, and
 * to the one after when that one refuses the connection — what a TCP load balancer with connect
 * health checks does in front of several core processes. HTTP/2 keeps one connection per client,
 * so a client stays on one upstream until that connection breaks.
 */
export interface RoundRobinProxy {
  readonly port: number;
  /** How many connections went to each upstream, by port. */
  readonly connections: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreamPorts: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const connections = new Map<number, number>(upstreamPorts.map((p) => [p, 0]));
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  };
  const server = createServer((client) => {
    track(client);
    client.pause();
    client.on("error", () => client.destroy());
    const start = next++;
    const tryUpstream = (attempt: number) => {
      if (attempt >= upstreamPorts.length) {
        client.destroy();
        return;
      }
      const port = upstreamPorts[(start + attempt) % upstreamPorts.length] ?? 0;
      const upstream = connect(port, "127.0.0.1");
      let connected = false;
      upstream.once("connect", () => {
        connected = true;
        connections.set(port, (connections.get(port) ?? 0) + 1);
        track(upstream);
        upstream.on("close", () => client.destroy());
        client.on("close", () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      upstream.on("error", () => {
        if (connected) upstream.destroy();
        else tryUpstream(attempt + 1);
      });
    };
    tryUpstream(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
