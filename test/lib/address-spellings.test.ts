import type { LookupAddress } from "node:dns";
import test from "ava";
import fc from "fast-check";
import { createOutboundGuard, type Resolve } from "../../lib/net/outbound-guard.js";

// The outbound guard's address rules (lib/net/outbound-guard.ts, lib/net/classify-address.ts) over
// every way a URL can spell an address: what the WHATWG URL parser normalises (decimal, octal, hex,
// short IPv4 forms; IPv6 compression) and IPv6 forms that carry an IPv4 address (mapped, compatible,
// NAT64, 6to4, Teredo). The ranges below are written out here, apart from the guard's own table, so
// the test is not the code read twice.

const strict = createOutboundGuard({ allowPrivate: false });
const lenient = createOutboundGuard({ allowPrivate: true });

type Range = readonly [network: string, prefix: number];
/** Ranges the operator may open with the allow-private settings. */
const PRIVATE_V4: readonly Range[] = [
  ["127.0.0.0", 8],
  ["10.0.0.0", 8],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["198.18.0.0", 15],
];
/** Ranges never contacted. */
const RESERVED_V4: readonly Range[] = [
  ["0.0.0.0", 8],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
];
/** Whole /8s with no special range inside. */
const PUBLIC_V4_SLASH8 = [1, 8, 23, 45, 93, 104, 151, 185, 212];

const toNumber = (dotted: string) => dotted.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255] as const;
const dottedOf = (n: number) => octets(n).join(".");
const inRange = ([network, prefix]: Range) =>
  fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((host) => toNumber(network) + host);
const addressIn = (ranges: readonly Range[]) => fc.constantFrom(...ranges).chain(inRange);
const publicV4 = fc
  .tuple(fc.constantFrom(...PUBLIC_V4_SLASH8), fc.integer({ min: 0, max: 2 ** 24 - 1 }))
  .map(([first, rest]) => first * 2 ** 24 + rest);

/** IPv4 spellings the URL parser turns into the dotted form. */
function ipv4Spellings(n: number): string[] {
  const [a, b, c, d] = octets(n);
  return [
    dottedOf(n),
    String(n),
    octets(n)
      .map((o) => `0${o.toString(8)}`)
      .join("."),
    octets(n)
      .map((o) => `0x${o.toString(16)}`)
      .join("."),
    `0x${n.toString(16)}`,
    `${a}.${b}.${c * 256 + d}`,
    `${a}.${n & 0xffffff}`,
    `0x${a.toString(16)}.0${b.toString(8)}.${c}.${d}`,
    `${dottedOf(n)}.`,
  ];
}

const hex = (word: number) => (word & 0xffff).toString(16);

/** IPv6 spellings that carry IPv4 address n and are judged by it. */
function carryingSpellings(n: number): string[] {
  const high = hex(n >>> 16);
  const low = hex(n & 0xffff);
  return [
    `::ffff:${dottedOf(n)}`,
    `::ffff:${high}:${low}`,
    `0:0:0:0:0:ffff:${high}:${low}`,
    `64:ff9b::${dottedOf(n)}`,
    `64:ff9b::${high}:${low}`,
    `2002:${high}:${low}::1`,
    `2001:0:${high}:${low}:0:0:f7f7:f7f7`,
    `2001:0:808:808:0:0:${hex(~(n >>> 16))}:${hex(~n)}`,
  ];
}

/** An IPv4-compatible address (::a.b.c.d) is refused whatever it carries: deprecated, never routed. */
const compatibleSpellings = (n: number) => [`::${dottedOf(n)}`, `::${hex(n >>> 16)}:${hex(n & 0xffff)}`];

/** The host of `https://<spelling>:8443/hook` as the URL parser leaves it. */
const hostOf = (spelling: string) => {
  const literal = spelling.includes(":") ? `[${spelling}]` : spelling;
  return new URL(`https://${literal}:8443/hook`).hostname;
};

const resolvesTo =
  (answer: Record<string, readonly string[]>): Resolve =>
  async (hostname) => {
    const addresses = answer[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`${hostname} unknown`), { code: "ENOTFOUND" });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const refused = async (guard: typeof strict, host: string) => (await guard.hostProblem(host)) !== undefined;

test("every IPv4 spelling the URL parser accepts normalises to the dotted form", async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 32 - 1 }), async (n) => {
      for (const spelling of ipv4Spellings(n)) t.is(hostOf(spelling), dottedOf(n), spelling);
    }),
  );
});

test("private and reserved IPv4 addresses are refused in every spelling, plain or carried in IPv6", async (t) => {
  await fc.assert(
    fc.asyncProperty(addressIn([...PRIVATE_V4, ...RESERVED_V4]), async (n) => {
      for (const spelling of [...ipv4Spellings(n), ...carryingSpellings(n), ...compatibleSpellings(n)]) {
        t.true(await refused(strict, hostOf(spelling)), `${spelling} (${dottedOf(n)})`);
      }
    }),
  );
});

test("the reported case and its neighbours: [::ffff:7f00:1], [::ffff:127.0.0.1], [::7f00:1], [64:ff9b::7f00:1]", async (t) => {
  for (const spelling of ["::ffff:7f00:1", "::ffff:127.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1"]) {
    const problem = await strict.hostProblem(hostOf(spelling));
    t.regex(problem ?? "", /127\.0\.0\.1/, spelling);
  }
  t.is(
    await strict.hostProblem(hostOf("::ffff:7f00:1")),
    "::ffff:7f00:1 is IPv4-mapped 127.0.0.1 (loopback)",
  );
});

test("public IPv4 addresses pass in every spelling and carried in mapped, NAT64, 6to4 and Teredo forms", async (t) => {
  await fc.assert(
    fc.asyncProperty(publicV4, async (n) => {
      for (const spelling of [...ipv4Spellings(n), ...carryingSpellings(n)]) {
        t.is(await strict.hostProblem(hostOf(spelling)), undefined, spelling);
      }
      for (const spelling of compatibleSpellings(n))
        t.true(await refused(strict, hostOf(spelling)), spelling);
    }),
  );
});

const word = (min: number, max: number) => fc.integer({ min, max });
const ipv6In = (first: fc.Arbitrary<number>) =>
  fc
    .tuple(first, fc.array(word(0, 0xffff), { minLength: 7, maxLength: 7 }))
    .map(([head, rest]) => [head, ...rest].map(hex).join(":"));

test("IPv6 link-local, unique-local, site-local, multicast, documentation and ::/8 are refused", async (t) => {
  const special = fc.oneof(
    ipv6In(word(0xfe80, 0xfebf)),
    ipv6In(word(0xfec0, 0xfeff)),
    ipv6In(word(0xfc00, 0xfdff)),
    ipv6In(word(0xff00, 0xffff)),
    ipv6In(word(0, 0xff)),
    ipv6In(fc.constant(0x3fff)).map((a) => a.replace(/^3fff:[0-9a-f]+/, "3fff:0")),
    ipv6In(fc.constant(0x2001)).map((a) => a.replace(/^2001:[0-9a-f]+/, "2001:db8")),
    ipv6In(fc.constant(0x64)).map((a) => a.replace(/^64:[0-9a-f]+:[0-9a-f]+/, "64:ff9b:1")),
  );
  await fc.assert(
    fc.asyncProperty(special, async (address) => {
      t.true(await refused(strict, hostOf(address)), address);
    }),
  );
  for (const address of ["::", "::1", "0:0:0:0:0:0:0:1", "ff02::1", "fe80::1", "fd00::1"]) {
    t.true(await refused(strict, hostOf(address)), address);
  }
});

test("global unicast IPv6 passes", async (t) => {
  await fc.assert(
    fc.asyncProperty(ipv6In(word(0x2400, 0x2a0f)), async (address) => {
      t.is(await strict.hostProblem(hostOf(address)), undefined, address);
    }),
  );
});

test("a DNS name is refused when any address it resolves to is refused, in any spelling of the answer", async (t) => {
  await fc.assert(
    fc.asyncProperty(
      addressIn([...PRIVATE_V4, ...RESERVED_V4]),
      publicV4,
      fc.boolean(),
      async (blocked, open, carried) => {
        const bad = carried ? `::ffff:${dottedOf(blocked)}` : dottedOf(blocked);
        const guard = createOutboundGuard({
          allowPrivate: false,
          resolve: resolvesTo({
            "bad.test": [bad],
            "mixed.test": [dottedOf(open), bad],
            "good.test": [dottedOf(open), `::ffff:${dottedOf(open)}`],
          }),
        });
        t.regex((await guard.hostProblem("bad.test")) ?? "", /^bad\.test resolves to /);
        t.regex((await guard.hostProblem("mixed.test")) ?? "", /^mixed\.test resolves to /);
        t.is(await guard.hostProblem("good.test"), undefined);
      },
    ),
  );
  const guard = createOutboundGuard({ allowPrivate: false, resolve: resolvesTo({}) });
  t.is(await guard.hostProblem("nowhere.test"), "host nowhere.test does not resolve");
});

test("the real resolver: localhost is refused, by name and as urlProblem", async (t) => {
  t.regex(
    (await strict.hostProblem("localhost")) ?? "",
    /^localhost resolves to (127\.0\.0\.1|::1), which is loopback$/,
  );
  t.regex(
    (await strict.urlProblem("https://localhost:8443/hook", { protocols: ["https:"] })) ?? "",
    /loopback/,
  );
});

test("allowing private addresses lifts exactly the private ranges; reserved ones stay refused", async (t) => {
  await fc.assert(
    fc.asyncProperty(addressIn(PRIVATE_V4), addressIn(RESERVED_V4), async (priv, reserved) => {
      for (const spelling of [...ipv4Spellings(priv), `::ffff:${dottedOf(priv)}`]) {
        t.is(await lenient.hostProblem(hostOf(spelling)), undefined, spelling);
      }
      for (const spelling of [...ipv4Spellings(reserved), `::ffff:${dottedOf(reserved)}`]) {
        t.true(await refused(lenient, hostOf(spelling)), spelling);
      }
    }),
  );
  for (const address of ["::1", "fe80::1", "fd00::1"]) t.is(await lenient.hostProblem(address), undefined);
  for (const address of ["::", "ff02::1", "2001:db8::1", "::127.0.0.1"])
    t.true(await refused(lenient, address));
});

test("URL rules: scheme, credentials and a host that is not an address", async (t) => {
  const https = { protocols: ["https:"] };
  t.is(await strict.urlProblem("http://8.8.8.8/v1", https), "must use https");
  t.is(await strict.urlProblem("https://u:p@8.8.8.8/v1", https), "must not contain credentials");
  t.is(await strict.urlProblem("not a url", https), "is not a valid absolute URL");
  t.is(await strict.urlProblem("https://8.8.8.8/v1?x=1", https), undefined);
  t.is(
    await strict.urlProblem("https://[::ffff:7f00:1]:8443/", https),
    "::ffff:7f00:1 is IPv4-mapped 127.0.0.1 (loopback)",
  );
  t.is(strict.addressProblem("not-an-ip"), "not-an-ip is not an IP address");
});
