import test from "ava";
import {
  BLOCKED_ADDRESS_CODE,
  createGuardedFetch,
  guardedFetch,
  isBlockedAddress,
  outboundUrlProblem,
} from "../../lib/net/outbound-guard.js";
import { type FakeServer, startFakeServer } from "../helpers/fake-http-server.js";

// lib/net/outbound-guard.ts: the SSRF guard shared by every call to a tenant-given URL (BYOK
// provider base URLs; webhooks next). The address is checked when the connection is made.

let server: FakeServer;
test.before(async () => {
  server = await startFakeServer(() => ({ json: { ok: true } }));
});
test.after.always(() => server?.close());

const request = () => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: "{}",
  signal: AbortSignal.timeout(5000),
});

test("blocked ranges: loopback, private, link-local, CGNAT, mapped IPv4, ULA; public passes", (t) => {
  for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254"]) {
    t.true(isBlockedAddress(address), address);
  }
  for (const address of ["100.64.0.1", "0.0.0.0", "::1", "::ffff:127.0.0.1", "fd00::1", "fe80::1"]) {
    t.true(isBlockedAddress(address), address);
  }
  t.true(isBlockedAddress("::ffff:7f00:1"), "hex-mapped 127.0.0.1");
  for (const address of ["8.8.8.8", "1.1.1.1", "::ffff:8.8.8.8", "2606:4700:4700::1111"]) {
    t.false(isBlockedAddress(address), address);
  }
  t.true(isBlockedAddress("not-an-ip"));
});

test("a name resolving to loopback is refused at connect time; the server sees nothing", async (t) => {
  const before = server.requests.length;
  const url = `http://localhost:${new URL(server.url).port}/x`;
  const error = await t.throwsAsync(guardedFetch(url, request()));
  t.is((error?.cause as { code?: string } | undefined)?.code, BLOCKED_ADDRESS_CODE);
  t.is(server.requests.length, before);
});

test("an IP literal in a blocked range is refused before any connection", async (t) => {
  const error = await t.throwsAsync(guardedFetch(`${server.url}/x`, request()));
  t.is((error?.cause as { code?: string } | undefined)?.code, BLOCKED_ADDRESS_CODE);
});

test("an allowed address goes through the guarded lookup and gets its answer", async (t) => {
  const allowLoopback = createGuardedFetch((address) => !address.startsWith("127.") && address !== "::1");
  const response = await allowLoopback(`http://localhost:${new URL(server.url).port}/x`, request());
  t.is(response.status, 200);
  t.deepEqual(JSON.parse(await response.text()), { ok: true });
});

test("URL rules when a URL is stored: https only, no credentials or query, public host", async (t) => {
  t.is(await outboundUrlProblem("http://api.example.com/v1", false), "must use https");
  t.is(await outboundUrlProblem("https://u:p@api.example.com/v1", false), "must not contain credentials");
  t.is(
    await outboundUrlProblem("https://api.example.com/v1?x=1", false),
    "must not contain a query or fragment",
  );
  t.regex((await outboundUrlProblem("https://127.0.0.1/v1", false)) ?? "", /private, loopback/);
  t.is(await outboundUrlProblem("http://127.0.0.1:11434/v1", true), undefined);
});
