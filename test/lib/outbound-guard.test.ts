import type { LookupAddress } from "node:dns";
import { request } from "node:https";
import { type AddressInfo, createServer, type Server } from "node:net";
import test from "ava";
import {
  BLOCKED_ADDRESS_CODE,
  createOutboundGuard,
  type OutboundGuard,
  OutboundRefused,
  type Resolve,
} from "../../lib/net/outbound-guard.js";
import { startFakeServer } from "../helpers/fake-http-server.js";

// lib/net/outbound-guard.ts at connect time: whatever a URL said when it was stored, a connection
// through the guard reaches only an address the guard allows — checked before the socket exists, so
// a refused target sees no TCP connection at all — and a redirect is answered, never followed.

/** A TCP listener on 127.0.0.1 that counts the connections reaching it. */
async function countingListener(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const post = () => ({ method: "POST", headers: {}, body: "{}", signal: AbortSignal.timeout(5000) });

const causeCode = (error: unknown) =>
  ((error as { cause?: { code?: string } } | undefined)?.cause ?? (error as { code?: string } | undefined))
    ?.code;

/** A resolver whose answer for each name the test changes as it goes (DNS rebinding). */
function switchableResolver(answer: Map<string, string>): Resolve {
  return async (hostname) => {
    const address = answer.get(hostname);
    if (address === undefined)
      throw Object.assign(new Error(`${hostname}: ENOTFOUND`), { code: "ENOTFOUND" });
    return [{ address, family: address.includes(":") ? 6 : 4 } satisfies LookupAddress];
  };
}

/** One HTTPS POST through the guard's agent; resolves with the error it failed with. */
function httpsThrough(guard: OutboundGuard, url: string): Promise<Error | undefined> {
  return new Promise((done) => {
    const agent = guard.httpsAgent({ keepAlive: false });
    const req = request(url, { method: "POST", agent, rejectUnauthorized: false, timeout: 5000 });
    req.on("error", (error) => {
      agent.destroy();
      done(error);
    });
    req.on("response", () => {
      agent.destroy();
      done(undefined);
    });
    req.end("{}");
  });
}

test("IP literals of a refused range fail before any connection, in fetch and in the https agent", async (t) => {
  const listener = await countingListener();
  const guard = createOutboundGuard({ allowPrivate: false });
  try {
    for (const host of ["127.0.0.1", "[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "0x7f.1", "2130706433"]) {
      const fetchError = await t.throwsAsync(guard.fetch(`http://${host}:${listener.port}/x`, post()));
      t.is(causeCode(fetchError), BLOCKED_ADDRESS_CODE, `fetch ${host}`);
      const agentError = await httpsThrough(guard, `https://${host}:${listener.port}/x`);
      t.true(agentError instanceof OutboundRefused, `agent ${host}`);
    }
    t.is(listener.connections(), 0, "no TCP connection reached the listener");
  } finally {
    await listener.close();
  }
});

test("DNS rebinding: a name that was public when checked and is loopback at connect time reaches nothing", async (t) => {
  const listener = await countingListener();
  const answer = new Map([["rebind.test", "93.184.216.34"]]);
  const guard = createOutboundGuard({ allowPrivate: false, resolve: switchableResolver(answer) });
  try {
    t.is(await guard.hostProblem("rebind.test"), undefined, "public when the URL was stored");
    for (const rebound of ["127.0.0.1", "::ffff:7f00:1", "::ffff:127.0.0.1"]) {
      answer.set("rebind.test", rebound);
      const fetchError = await t.throwsAsync(guard.fetch(`http://rebind.test:${listener.port}/x`, post()));
      t.is(causeCode(fetchError), BLOCKED_ADDRESS_CODE);
      const agentError = await httpsThrough(guard, `https://rebind.test:${listener.port}/x`);
      t.is(
        agentError?.message,
        `rebind.test resolves to ${rebound}, which is ${rebound.includes("ffff") ? "IPv4-mapped 127.0.0.1 (loopback)" : "loopback"}`,
      );
    }
    t.is(listener.connections(), 0, "no TCP connection reached the listener");

    // The control: allowed, the same name and listener do get a connection.
    const lenient = createOutboundGuard({ allowPrivate: true, resolve: switchableResolver(answer) });
    answer.set("rebind.test", "127.0.0.1");
    await httpsThrough(lenient, `https://rebind.test:${listener.port}/x`);
    t.is(listener.connections(), 1);
  } finally {
    await listener.close();
  }
});

test("the real resolver: localhost is refused at connect time, the server sees no request", async (t) => {
  const server = await startFakeServer(() => ({ json: { ok: true } }));
  try {
    const guard = createOutboundGuard({ allowPrivate: false });
    const error = await t.throwsAsync(guard.fetch(`http://localhost:${new URL(server.url).port}/x`, post()));
    t.is(causeCode(error), BLOCKED_ADDRESS_CODE);
    t.is(server.requests.length, 0);
    const lenient = createOutboundGuard({ allowPrivate: true });
    const response = await lenient.fetch(`http://localhost:${new URL(server.url).port}/x`, post());
    t.is(response.status, 200);
    t.deepEqual(JSON.parse(await response.text()), { ok: true });
  } finally {
    await server.close();
  }
});

test("a redirect is answered, not followed — with private addresses allowed too", async (t) => {
  const target = await startFakeServer(() => ({ json: { reached: true } }));
  const redirecting = await startFakeServer(() => ({
    status: 302,
    headers: { location: `${target.url}/elsewhere` },
    text: "",
  }));
  try {
    const lenient = createOutboundGuard({ allowPrivate: true });
    const response = await lenient.fetch(`${redirecting.url}/v1/embeddings`, post());
    t.is(response.status, 302);
    t.is(redirecting.requests.length, 1);
    t.is(target.requests.length, 0, "the redirect's target saw nothing");
  } finally {
    await redirecting.close();
    await target.close();
  }
});
