import type { AddressInfo } from "node:net";
import { createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of a real server, so a test can make it unreachable (cut) and reachable
 * again (restore) without stopping it: how we test "database down" against real PostgreSQL.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  /**
   * A hung server (SIGSTOP, a stalled disk): connections stay open and new ones are accepted, but
   * no byte passes in either direction until thaw().
   */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const { connect } = await import("node:net");
  let open = true;
  let frozen = false;
  const sockets = new Set<Socket>();
  const waiting = new Set<() => void>();
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    if (frozen) {
      // Accepted, never answered until thawed (a TCP backlog behind a stopped server).
      sockets.add(client);
      client.on("close", () => sockets.delete(client));
      client.on("error", () => client.destroy());
      client.pause();
      waiting.add(() => {
        sockets.delete(client);
        if (!client.destroyed) server.emit("connection", client);
      });
      return;
    }
    const upstream = connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw() {
      frozen = false;
      for (const s of sockets) s.resume();
      for (const resume of waiting) resume();
      waiting.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
