import { BlockList, isIP } from "node:net";

/**
 * What makes an address one a user-given URL must not reach (ADR 0360).
 * - `private`: the operator's own networks (loopback, RFC 1918, CGNAT, link-local, unique-local …);
 *   PROVIDER_ALLOW_PRIVATE_URLS and WEBHOOK_ALLOW_PRIVATE_TARGETS lift exactly these.
 * - `reserved`: never a host to talk to (unspecified, multicast, broadcast, documentation, deprecated
 *   forms); refused whatever the configuration.
 */
export interface SpecialAddress {
  readonly kind: "private" | "reserved";
  /** For messages: "loopback", "IPv4-mapped 127.0.0.1 (loopback)" … */
  readonly what: string;
}

type Range = readonly [network: string, prefix: number, kind: SpecialAddress["kind"], what: string];

// RFC 6890 and the IANA special-purpose registries; order matters only where ranges overlap
// (255.255.255.255 before 240/4).
const IPV4: readonly Range[] = [
  ["0.0.0.0", 8, "reserved", "unspecified (this network)"],
  ["10.0.0.0", 8, "private", "private (RFC 1918)"],
  ["100.64.0.0", 10, "private", "shared address space (CGNAT)"],
  ["127.0.0.0", 8, "private", "loopback"],
  ["169.254.0.0", 16, "private", "link-local"],
  ["172.16.0.0", 12, "private", "private (RFC 1918)"],
  ["192.0.0.0", 24, "reserved", "reserved (IETF protocol assignments)"],
  ["192.0.2.0", 24, "reserved", "reserved (documentation)"],
  ["192.88.99.0", 24, "reserved", "reserved (6to4 relay anycast)"],
  ["192.168.0.0", 16, "private", "private (RFC 1918)"],
  ["198.18.0.0", 15, "private", "benchmarking network"],
  ["198.51.100.0", 24, "reserved", "reserved (documentation)"],
  ["203.0.113.0", 24, "reserved", "reserved (documentation)"],
  ["224.0.0.0", 4, "reserved", "multicast"],
  ["255.255.255.255", 32, "reserved", "broadcast"],
  ["240.0.0.0", 4, "reserved", "reserved (240/4)"],
];

// IPv6 ranges that carry no IPv4 address (those that do are judged by the address they carry).
const IPV6: readonly Range[] = [
  ["64:ff9b:1::", 48, "private", "local-use NAT64"],
  ["100::", 64, "reserved", "reserved (discard-only)"],
  ["2001:10::", 28, "reserved", "reserved (ORCHID)"],
  ["2001:20::", 28, "reserved", "reserved (ORCHIDv2)"],
  ["2001:db8::", 32, "reserved", "reserved (documentation)"],
  ["3fff::", 20, "reserved", "reserved (documentation)"],
  ["fc00::", 7, "private", "unique-local"],
  ["fe80::", 10, "private", "link-local"],
  ["fec0::", 10, "private", "site-local (deprecated)"],
  ["ff00::", 8, "reserved", "multicast"],
];

function listsOf(ranges: readonly Range[], family: "ipv4" | "ipv6") {
  return ranges.map(([network, prefix, kind, what]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, special: { kind, what } satisfies SpecialAddress };
  });
}

const IPV4_LISTS = listsOf(IPV4, "ipv4");
const IPV6_LISTS = listsOf(IPV6, "ipv6");

/**
 * Why `address` (an IP address as the URL parser or DNS gives it) is special, or undefined for a
 * public address. A string that is not an IP address is `reserved`: the guard never connects to
 * what it could not judge.
 */
export function classifyAddress(address: string): SpecialAddress | undefined {
  // A zone index (fe80::1%eth0) names an interface, not part of the address.
  const bare = address.split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 4) return IPV4_LISTS.find((l) => l.list.check(bare, "ipv4"))?.special;
  if (family === 6) return classifyIpv6(bare);
  return { kind: "reserved", what: "not an IP address" };
}

function classifyIpv6(address: string): SpecialAddress | undefined {
  const w = ipv6Words(address);
  const zeros = (from: number, to: number) => w.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return carried("IPv4-mapped", ipv4Of(w[6], w[7]));
  if (zeros(0, 6)) {
    if (zeros(6, 8)) return { kind: "reserved", what: "unspecified" };
    if (w[6] === 0 && w[7] === 1) return { kind: "private", what: "loopback" };
    // ::a.b.c.d, deprecated by RFC 4291: no host should be reached by it, public or not.
    return { kind: "reserved", what: `IPv4-compatible ${ipv4Of(w[6], w[7])} (deprecated)` };
  }
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return carried("NAT64", ipv4Of(w[6], w[7]));
  const listed = IPV6_LISTS.find((l) => l.list.check(address, "ipv6"))?.special;
  if (listed !== undefined) return listed;
  // The rest of ::/8 (IPv4-translated ::ffff:0:a.b.c.d among it) is reserved by IANA.
  if ((w[0] ?? 0) < 0x100) return { kind: "reserved", what: "reserved (::/8)" };
  if (w[0] === 0x2002) return carried("6to4", ipv4Of(w[1], w[2]));
  if (w[0] === 0x2001 && w[1] === 0) {
    // Teredo: the server's address in the clear, the client's inverted (RFC 4380 4).
    const server = carried("Teredo server", ipv4Of(w[2], w[3]));
    return server ?? carried("Teredo client", ipv4Of(~(w[6] ?? 0) & 0xffff, ~(w[7] ?? 0) & 0xffff));
  }
  return undefined;
}

/** An IPv6 address that carries an IPv4 one (mapped, NAT64, 6to4, Teredo) is what it carries. */
function carried(form: string, ipv4: string): SpecialAddress | undefined {
  const inner = IPV4_LISTS.find((l) => l.list.check(ipv4, "ipv4"))?.special;
  return inner && { kind: inner.kind, what: `${form} ${ipv4} (${inner.what})` };
}

function ipv4Of(high: number | undefined, low: number | undefined): string {
  const h = high ?? 0;
  const l = low ?? 0;
  return `${h >> 8}.${h & 255}.${l >> 8}.${l & 255}`;
}

/** The eight 16-bit words of a valid IPv6 address (isIP already said it is one). */
function ipv6Words(address: string): number[] {
  const words = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = "", tail] = address.split("::");
  const first = words(head);
  if (tail === undefined) return first;
  const last = words(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
