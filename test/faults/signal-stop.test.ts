import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { processesOf, waitForNoProcessesOf } from "../helpers/data-dir-processes.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import {
  type ServiceProcess,
  servicePid,
  spawnService,
  stopServiceProcess,
  waitForHealth,
} from "../helpers/service-process.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 51: every way the service is stopped leaves nothing running on its data directory. A group
// SIGTERM to `npm start` used to end the node process by Node's default action — npm forwards the
// SIGTERM it gets, so node got a second one just after its once-handler had removed itself — and the
// embedded PostgreSQL, in a session of its own, ran on. Each case starts the service in embedded
// mode on a scratch DATA_DIR, in a process group of its own, stops it one way, and scans
// /proc/*/cmdline for the data directory.

type Launcher = "npm start" | "node";
type Target = "group" | "node";
type Outcome = "drained" | "cut short" | "killed";

interface StopCase {
  readonly title: string;
  readonly first: { readonly signal: NodeJS.Signals; readonly target: Target };
  /** A second signal, sent while the drain still waits on a client sending its body slowly. */
  readonly second?: NodeJS.Signals;
  readonly outcome: Outcome;
}

const CASES: readonly StopCase[] = [
  {
    title: "SIGTERM to the group drains and stops",
    first: { signal: "SIGTERM", target: "group" },
    outcome: "drained",
  },
  {
    title: "SIGINT to the group drains and stops",
    first: { signal: "SIGINT", target: "group" },
    outcome: "drained",
  },
  {
    title: "SIGTERM to node alone drains and stops",
    first: { signal: "SIGTERM", target: "node" },
    outcome: "drained",
  },
  {
    title: "a second SIGTERM to the group during the drain stops PostgreSQL and exits 1",
    first: { signal: "SIGTERM", target: "group" },
    second: "SIGTERM",
    outcome: "cut short",
  },
  {
    title: "SIGKILL to the group: the watchdog stops PostgreSQL",
    first: { signal: "SIGKILL", target: "group" },
    outcome: "killed",
  },
];

/** A client that sends a request's headers and part of its body, then nothing: the drain waits for it. */
async function slowClient(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => undefined);
  // Expect: 100-continue makes the server say when it has the request in hand; only then is the
  // request in flight, so the drain must wait for it (without this, a signal that came before the
  // server had parsed the headers found an idle connection and the drain ended at once).
  const continued = new Promise<void>((resolve) => {
    let seen = "";
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1");
      if (/^HTTP\/1\.1 100/.test(seen)) resolve();
    });
  });
  socket.write(
    "POST /api/oauth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Expect: 100-continue\r\nContent-Length: 1000\r\n\r\n",
  );
  await continued;
  socket.write('{"client_name":');
  return socket;
}

for (const launcher of ["npm start", "node"] as const satisfies readonly Launcher[]) {
  for (const stop of CASES) {
    test.serial(`${launcher}: ${stop.title}; nothing runs on the data directory after`, async (t) => {
      t.timeout(180_000);
      const dataDir = await mkdtemp(join(tmpdir(), "memory-signal-stop-"));
      const port = await freePort();
      const env = {
        DATA_DIR: dataDir,
        PORT: String(port),
        GRPC_PORT: String(await freePort()),
        EMBEDDED_PG_PORT: String(await freePort()),
        LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
        RERANKER: "none",
      };
      const service: ServiceProcess = spawnService(env, {
        compiled: true,
        npm: launcher === "npm start",
        detached: true,
      });
      const sockets: Socket[] = [];
      t.teardown(async () => {
        for (const socket of sockets) socket.destroy();
        await stopServiceProcess(service, dataDir);
        await rm(dataDir, { recursive: true, force: true });
      });
      await waitForHealth(`http://127.0.0.1:${port}`, 120_000);
      t.true((await processesOf(join(dataDir, "pg"))).length > 0, "the embedded postmaster runs");
      const leader = service.child.pid ?? 0;
      const node = await servicePid(service);
      const send = (signal: NodeJS.Signals, target: Target) =>
        process.kill(target === "group" ? -leader : node, signal);

      if (stop.second) sockets.push(await slowClient(port));
      send(stop.first.signal, stop.first.target);
      if (stop.second) {
        await waitFor(() => (/shutting down/.test(service.output()) ? true : undefined), {
          what: "the shutdown to begin",
        });
        // A repeat within a second is taken for the same signal delivered twice (npm forwards what
        // the group already got); this one comes later, as a person's or a supervisor's would.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        t.is(service.child.exitCode, null, "the drain still waits on the slow client");
        send(stop.second, "group");
      }
      const code = await service.exited;
      await waitForNoProcessesOf(dataDir, stop.outcome === "killed" ? 10_000 : 2_000);

      const output = service.output();
      if (stop.outcome === "killed") {
        t.is(service.child.signalCode, "SIGKILL");
        return;
      }
      t.regex(output, /"msg":"shutting down: draining requests and jobs"/);
      if (stop.outcome === "drained") {
        t.is(code, 0, output.slice(-2000));
        t.regex(output, /"msg":"stopped"/);
        t.notRegex(output, /second signal/);
      } else {
        t.is(code, 1, output.slice(-2000));
        t.regex(output, /"msg":"second signal: exiting now/);
        t.notRegex(output, /"msg":"stopped"/);
      }
    });
  }
}
