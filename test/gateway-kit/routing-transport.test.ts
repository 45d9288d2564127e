import { Code, ConnectError, type ConnectRouter, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { type GrpcServer, startGrpcServer } from "../../core/server.js";
import { createRoutingTransport } from "../../gateway-kit/routing-transport.js";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { ROUTE_HEADER, tenantRoute } from "../../lib/gateway-metadata.js";
import { freePort } from "../helpers/free-port.js";

// ADR 0380: the gateways' transport over several cores — one core per workspace, the next one while
// it is down. Real HTTP/2 servers stand in for core: each answers grpc.health.v1 and, like core's
// route-header interceptor, names the workspace of a "Bearer <workspace>.<n>" credential.

interface FakeCore {
  readonly url: string;
  readonly port: number;
  /** Credentials of the calls this core answered, in order. */
  readonly calls: string[];
  server: GrpcServer | undefined;
}

const workspaceOf = (authorization: string | null) => authorization?.match(/^Bearer (\w+)\./)?.[1];

async function startFakeCore(port: number, calls: string[] = []): Promise<GrpcServer> {
  const routes = (router: ConnectRouter) =>
    router.service(Health, {
      check(req, ctx) {
        const authorization = ctx.requestHeader.get("authorization");
        calls.push(authorization ?? "anonymous");
        const workspace = workspaceOf(authorization);
        if (workspace !== undefined) ctx.responseHeader.set(ROUTE_HEADER, tenantRoute(workspace));
        if (req.service === "database down") {
          throw new ConnectError("the database is unavailable", Code.Unavailable);
        }
        return { status: HealthCheckResponse_ServingStatus.SERVING };
      },
      list: () => ({ statuses: {} }),
      async *watch(_req, ctx) {
        calls.push(ctx.requestHeader.get("authorization") ?? "anonymous");
        yield { status: HealthCheckResponse_ServingStatus.SERVING };
      },
    });
  return startGrpcServer({ routes, interceptors: [], host: "127.0.0.1", port });
}

async function startFleet(n: number): Promise<FakeCore[]> {
  const cores: FakeCore[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    const calls: string[] = [];
    cores.push({ url: `http://127.0.0.1:${port}`, port, calls, server: await startFakeCore(port, calls) });
  }
  return cores;
}

function clientOf(cores: readonly FakeCore[], failovers: string[] = [], now = Date.now) {
  const transport = createRoutingTransport({
    endpoints: cores.map((c) => ({ url: c.url, transport: createGrpcTransport({ baseUrl: c.url }) })),
    downForMs: 3000,
    now,
    onFailover: ({ from }) => failovers.push(from),
  });
  return createClient(Health, transport);
}

const bearer = (credential: string) => ({ headers: { authorization: `Bearer ${credential}` } });
/** The core a credential's next call goes to (its workspace's core once core has named it). */
async function ownerOf(cores: readonly FakeCore[], client: ReturnType<typeof clientOf>, credential: string) {
  for (const c of cores) c.calls.length = 0;
  await client.check({}, bearer(credential));
  return cores.find((c) => c.calls.length > 0)?.url;
}

async function stopAll(cores: readonly FakeCore[]) {
  await Promise.all(cores.map((c) => c.server?.close(0)));
}

test("once core names a workspace, every credential of it goes to the same core", async (t) => {
  const cores = await startFleet(3);
  t.teardown(() => stopAll(cores));
  const client = clientOf(cores);
  for (const workspace of ["alpha", "bravo", "charlie", "delta"]) {
    const credentials = Array.from({ length: 6 }, (_, i) => `${workspace}.${i}`);
    // Each credential's first call goes by the credential; core's answer names its workspace.
    for (const credential of credentials) await client.check({}, bearer(credential));
    for (const c of cores) c.calls.length = 0;
    for (const credential of credentials) {
      for (let i = 0; i < 3; i++) await client.check({}, bearer(credential));
    }
    const used = cores.filter((c) => c.calls.length > 0);
    t.is(used.length, 1, `${workspace}: later calls on ${used.length} cores`);
    t.is(used[0]?.calls.length, 18);
  }
});

test("calls without credentials are spread over the cores", async (t) => {
  const cores = await startFleet(2);
  t.teardown(() => stopAll(cores));
  const client = clientOf(cores);
  for (let i = 0; i < 40; i++) await client.check({});
  for (const c of cores) t.true(c.calls.length >= 8, `${c.url}: ${c.calls.length} of 40`);
});

test("a core that is down: its workspaces' calls go to the next core and none fails", async (t) => {
  const cores = await startFleet(3);
  t.teardown(() => stopAll(cores));
  const failovers: string[] = [];
  const client = clientOf(cores, failovers);
  for (let i = 0; i < 3; i++) await client.check({}, bearer(`echo.${i}`));
  const owner = await ownerOf(cores, client, "echo.0");
  const ownerCore = cores.find((c) => c.url === owner);
  await ownerCore?.server?.close(0);
  if (ownerCore) ownerCore.server = undefined;
  for (const c of cores) c.calls.length = 0;

  for (let i = 0; i < 10; i++) {
    const res = await client.check({}, bearer(`echo.${i % 3}`));
    t.is(res.status, HealthCheckResponse_ServingStatus.SERVING);
  }
  const used = cores.filter((c) => c.calls.length > 0);
  t.is(used.length, 1, "the workspace moved to one other core");
  t.not(used[0]?.url, owner);
  // The first call found the owner down; later calls skip it while it is marked down.
  t.deepEqual(failovers, [owner]);

  // Its server stream fails over too (before its first message).
  const messages = [];
  for await (const m of client.watch({}, bearer("echo.0"))) messages.push(m.status);
  t.deepEqual(messages, [HealthCheckResponse_ServingStatus.SERVING]);
});

test("the workspace returns to its core when that core is back and no longer marked down", async (t) => {
  const cores = await startFleet(2);
  t.teardown(() => stopAll(cores));
  const failovers: string[] = [];
  let clock = 1_000_000;
  const client = clientOf(cores, failovers, () => clock);
  await client.check({}, bearer("foxtrot.0"));
  const ownerUrl = await ownerOf(cores, client, "foxtrot.0");
  const owner = cores.find((c) => c.url === ownerUrl);
  const other = cores.find((c) => c !== owner);
  if (!owner || !other) return t.fail("two cores");
  await owner.server?.close(0);
  await client.check({}, bearer("foxtrot.0"));
  t.is(other.calls.at(-1), "Bearer foxtrot.0");
  owner.server = await startFakeCore(owner.port, owner.calls);
  await client.check({}, bearer("foxtrot.0"));
  t.is(other.calls.at(-1), "Bearer foxtrot.0", "still marked down: skipped although back");
  clock += 3001;
  await client.check({}, bearer("foxtrot.0"));
  t.is(owner.calls.at(-1), "Bearer foxtrot.0");
});

test("a core's own UNAVAILABLE (it answered) is not sent to another core", async (t) => {
  const cores = await startFleet(2);
  t.teardown(() => stopAll(cores));
  const failovers: string[] = [];
  const client = clientOf(cores, failovers);
  const error = await t.throwsAsync(client.check({ service: "database down" }, bearer("golf.0")));
  t.is(ConnectError.from(error).code, Code.Unavailable);
  t.deepEqual(failovers, []);
  t.is(
    cores.reduce((n, c) => n + c.calls.length, 0),
    1,
  );
});

test("with every core down the call fails UNAVAILABLE after trying each once", async (t) => {
  const cores = await startFleet(3);
  await stopAll(cores);
  const failovers: string[] = [];
  const client = clientOf(cores, failovers);
  const error = await t.throwsAsync(client.check({}, bearer("hotel.0")));
  t.is(ConnectError.from(error).code, Code.Unavailable);
  t.is(new Set(failovers).size, 2, "tried the first two, then the last failed the call");
});
