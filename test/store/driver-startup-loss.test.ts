import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import test, { type ExecutionContext } from "ava";
import postgres from "postgres";
import { ADMIN_URL } from "../helpers/test-database.js";

// A connection lost while the `postgres` driver fetches the array types (the first statement on
// every new connection) used to end the process: the driver dropped that query's promise, so its
// rejection was unhandled (porsager/postgres#1192, #1205) — seen in the postgres-restart fault test
// when the database stayed down for a few seconds. And when the reconnect succeeded, the lost type
// query was settled by the new connection's first answer, failing the user's query with the old
// error (#1223). patches/postgres+3.4.9.patch fixes both; these tests cut the connection exactly at
// that query, through a proxy in front of the real PostgreSQL.

interface StartupCutter {
  readonly port: number;
  /** Number of connections cut at the type query so far. */
  readonly cuts: () => number;
  close(): Promise<void>;
  /** Listens again on the same port after a cut that closed it. */
  reopen(): Promise<void>;
}

/** The message a backend sends when it is terminated (pg_terminate_backend, a fast shutdown). */
function terminatedByAdministrator(): Buffer {
  const fields = Buffer.from(
    "SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
    "latin1",
  );
  const head = Buffer.alloc(5);
  head.write("E", 0, "latin1");
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * Forwards to PostgreSQL; the first time a client sends the driver's type query, ends that
 * connection — as a terminated backend does (`terminate`: error 57P01, then close) or as a lost
 * network does (close only) — and with `refuseAfterCut` stops listening, so the reconnect is refused.
 */
async function startStartupCutter(
  target: URL,
  options: { refuseAfterCut: boolean; terminate: boolean },
): Promise<StartupCutter> {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const onClient = (client: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (data: Buffer) => {
      if (cuts === 0 && data.includes("pg_catalog.pg_type")) {
        cuts++;
        upstream.destroy();
        if (options.terminate) client.end(terminatedByAdministrator());
        else client.destroy();
        if (options.refuseAfterCut) server.close();
        return;
      }
      upstream.write(data);
    });
    upstream.pipe(client);
  };
  let server: Server = createServer(onClient);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    cuts: () => cuts,
    async reopen() {
      server = createServer(onClient);
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        if (!server.listening) resolve();
      }),
  };
}

/** Unhandled rejections while `fn` runs (ava would also fail the file, but not name the test). */
async function unhandledDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", onRejection);
  try {
    await fn();
    // Rejections are reported after the microtask queue drains: give them a turn of the loop.
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.off("unhandledRejection", onRejection);
  }
  return seen;
}

/** A one-connection client of PostgreSQL through a cutter, both closed when the test ends. */
async function clientThroughCutter(
  t: ExecutionContext,
  options: { refuseAfterCut: boolean; terminate: boolean },
): Promise<{ cutter: StartupCutter; sql: postgres.Sql }> {
  const cutter = await startStartupCutter(new URL(ADMIN_URL), options);
  const url = new URL(ADMIN_URL);
  url.hostname = "127.0.0.1";
  url.port = String(cutter.port);
  const sql = postgres(url.toString(), { max: 1, onnotice: () => undefined, connect_timeout: 5 });
  t.teardown(async () => {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    await cutter.close();
  });
  return { cutter, sql };
}

test.serial(
  "a connection lost at the type query with the database still down fails the query, not the process",
  async (t) => {
    const { cutter, sql } = await clientThroughCutter(t, { refuseAfterCut: true, terminate: false });
    const unhandled = await unhandledDuring(async () => {
      const error = await t.throwsAsync(sql`select 1 as one`);
      t.regex(String((error as NodeJS.ErrnoException).code), /ECONNREFUSED|CONNECTION_CLOSED/);
    });
    t.is(cutter.cuts(), 1, "the proxy cut the connection at the type query");
    t.deepEqual(unhandled, []);

    // The database is back: the same client connects, fetches the types and then serialises arrays
    // (the driver picks an array's type when the query is built, so only queries after the first).
    await cutter.reopen();
    t.deepEqual([...(await sql`select 1 as one`)], [{ one: 1 }]);
    const [row] = await sql<{ ids: number[] }[]>`select ${sql.array([3, 1, 2])}::int[] as ids`;
    t.deepEqual(row?.ids, [3, 1, 2]);
  },
);

test.serial(
  "a backend terminated at the type query: the reconnect answers the query, not with the old error",
  async (t) => {
    const { cutter, sql } = await clientThroughCutter(t, { refuseAfterCut: false, terminate: true });
    let answer: { one: number }[] = [];
    const unhandled = await unhandledDuring(async () => {
      answer = await sql<{ one: number }[]>`select 1 as one`;
    });
    t.is(cutter.cuts(), 1, "the proxy cut the connection at the type query");
    t.deepEqual(unhandled, []);
    t.deepEqual([...answer], [{ one: 1 }]);
    // The new connection fetched the types: array parameters work on it.
    const [row] = await sql<{ ids: string[] }[]>`select ${sql.array(["b", "a"])}::text[] as ids`;
    t.deepEqual(row?.ids, ["b", "a"]);
  },
);
