import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { withSpecGrpcMessages } from "./grpc-message-encoding.js";

export interface GrpcServer {
  readonly port: number;
  /** Stops accepting, lets running calls finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Core's one server: HTTP/2 cleartext serving gRPC, gRPC-Web and Connect from the same routes
 * (connect-node). grpc-js clients, buf-generated SDKs and browsers all reach it.
 */
export async function startGrpcServer(options: {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  host: string;
  port: number;
}): Promise<GrpcServer> {
  const handler = connectNodeAdapter({
    routes: options.routes,
    interceptors: options.interceptors,
    grpc: true,
    grpcWeb: true,
    connect: true,
  });
  const server = http2.createServer(withSpecGrpcMessages(handler));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close(graceMs = 5000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // GOAWAY: clients open no new streams here; running ones may finish.
      for (const session of sessions) session.close();
      const timer = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
