import ipaddr from "ipaddr.js";

/**
 * Which addresses an outbound request may reach (docs/decisions/088): public
 * unicast only. Everything else — loopback, private, link-local (with the
 * cloud metadata service at 169.254.169.254), unique-local, CGNAT, multicast,
 * broadcast, unspecified, reserved and the IPv6 forms that carry an IPv4
 * address — belongs to this machine or its network, which the assistant's
 * tools must not reach unless the operator allows it (./allow-list.ts).
 */

const RANGE_WORDS: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address",
  linkLocal: "a link-local address",
  uniqueLocal: "a unique-local address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  unspecified: "an unspecified address",
  reserved: "a reserved address",
};

/** Names that are the cloud's metadata service whatever they resolve to. */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

export type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** An IP address in any form people and URLs write it ("127.1", "0x7f.1", "2130706433", "[::1]"); undefined for a name. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return undefined;
  return unwrapIPv4(ipaddr.parse(bare));
}

/**
 * An IPv6 address that only carries an IPv4 one (::ffff:a.b.c.d, or the old
 * compatible ::a.b.c.d) is judged as that IPv4 address: the kernel connects
 * to it there.
 */
function unwrapIPv4(address: ParsedAddress): ParsedAddress {
  if (address.kind() === "ipv4") return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const parts = v6.parts;
  const compatible = parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7] > 1);
  if (compatible) return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  return v6;
}

/**
 * Why an address may not be reached ("a private address"), or undefined for a
 * public unicast one. Text that is no IP address at all is refused too.
 */
export function blockedReason(text: string): string | undefined {
  const address = parseAddress(text);
  if (!address) return "not an IP address";
  const range = address.range();
  if (range === "unicast") return undefined;
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/** A host name that is the metadata service by name (refused before it is looked up). */
export function isMetadataName(hostname: string): boolean {
  return METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ""));
}
