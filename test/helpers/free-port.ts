import type { AddressInfo } from "node:net";
import { createServer } from "node:net";

/** A TCP port that was free a moment ago (for child processes that need a fixed port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const isAddressInUse = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EADDRINUSE";

/**
 * Starts something that must listen on a port known before it starts (PUBLIC_URL names it) on a
 * free port, choosing another when a parallel test file took the port between `freePort` and the
 * listen (seen in CI: EADDRINUSE in a before hook).
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (!isAddressInUse(error) || attempt >= attempts) throw error;
    }
  }
}
