import { BlockList, isIP } from "node:net";

/**
 * The SSRF guard's rule (DESIGN "Outgoing webhooks", spec "Delivery rules"): a delivery may only
 * connect to a public address. Private, loopback, link-local, multicast and other special ranges are
 * refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set. Checked on the address actually connected to
 * (see send-webhook.ts), so a name that resolves differently later (DNS rebinding) gains nothing.
 */
const RANGES: readonly (readonly [string, number, "ipv4" | "ipv6", string])[] = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "private (shared address space)"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "reserved"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "reserved (benchmarking)"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fc00::", 7, "ipv6", "private (unique local)"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["64:ff9b::", 96, "ipv6", "reserved (NAT64)"],
  ["2001:db8::", 32, "ipv6", "reserved (documentation)"],
];

const lists = RANGES.map(([network, prefix, family, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, reason };
});

/** Why `address` may not be a webhook target, or undefined for a public address. */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return "not an IP address";
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is the IPv4 address in disguise.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return refusedAddressReason(mapped[1]);
  const type = family === 4 ? "ipv4" : "ipv6";
  return lists.find((l) => l.family === type && l.list.check(address, type))?.reason;
}
