import { describe, expect, it } from "vitest";
import { blockedReason, isMetadataName, parseAddress } from "~/net/addresses";
import { allowsAddress, allowsHost, parseAllowList } from "~/net/allow-list";

describe("which addresses an outbound request may reach", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.1", "a loopback address"],
    ["0x7f.1", "a loopback address"],
    ["0177.0.0.1", "a loopback address"],
    ["2130706433", "a loopback address"],
    ["::1", "a loopback address"],
    ["[::1]", "a loopback address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["[::ffff:7f00:1]", "a loopback address"],
    ["::7f00:1", "a loopback address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["10.0.0.5", "a private address"],
    ["172.16.3.4", "a private address"],
    ["192.168.1.1", "a private address"],
    ["::ffff:10.0.0.5", "a private address"],
    ["169.254.169.254", "a link-local address"],
    ["fe80::1", "a link-local address"],
    ["fd00::1", "a unique-local address"],
    ["fc00::5", "a unique-local address"],
    ["100.64.0.1", "a shared (carrier-grade NAT) address"],
    ["224.0.0.1", "a multicast address"],
    ["ff02::1", "a multicast address"],
    ["255.255.255.255", "a broadcast address"],
    ["240.0.0.1", "a reserved address"],
    ["192.0.2.1", "a reserved address"],
    ["2001:db8::1", "a reserved address"],
  ])("refuses %s: %s", (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it("refuses the IPv6 forms that carry an IPv4 address elsewhere (NAT64, 6to4) rather than guess where they go", () => {
    expect(blockedReason("64:ff9b::a00:1")).toMatch(/special-purpose/);
    expect(blockedReason("2002:a00:1::")).toMatch(/special-purpose/);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8", "[2a00:1450::1]"])(
    "lets the public address %s through",
    (address) => {
      expect(blockedReason(address)).toBeUndefined();
    },
  );

  it("refuses what is not an address at all", () => {
    expect(blockedReason("localhost")).toBe("not an IP address");
    expect(blockedReason("")).toBe("not an IP address");
    expect(parseAddress("example.com")).toBeUndefined();
  });

  it("knows the metadata service by name, however it is written", () => {
    expect(isMetadataName("metadata.google.internal")).toBe(true);
    expect(isMetadataName("METADATA.google.internal.")).toBe(true);
    expect(isMetadataName("metadata.example.com")).toBe(false);
  });
});

describe("the operator's allow list (OUTBOUND_ALLOW)", () => {
  const rules = parseAllowList("searx.lan:8888, 10.0.0.5, 192.168.0.0/24:8080, [::1]:9000, fd00::/8, 127.0.0.1:7000");

  it("allows a named host on its port only, whatever its case or final dot", () => {
    expect(allowsHost(rules, "SEARX.lan.", 8888)).toBe(true);
    expect(allowsHost(rules, "searx.lan", 80)).toBe(false);
    expect(allowsHost(rules, "other.lan", 8888)).toBe(false);
  });

  it("allows addresses and ranges, with or without a port", () => {
    expect(allowsAddress(rules, "10.0.0.5", 443)).toBe(true);
    expect(allowsAddress(rules, "10.0.0.6", 443)).toBe(false);
    expect(allowsAddress(rules, "192.168.0.77", 8080)).toBe(true);
    expect(allowsAddress(rules, "192.168.0.77", 80)).toBe(false);
    expect(allowsAddress(rules, "::1", 9000)).toBe(true);
    expect(allowsAddress(rules, "::1", 9001)).toBe(false);
    expect(allowsAddress(rules, "fd12::3", 1)).toBe(true);
    expect(allowsAddress(rules, "127.0.0.1", 7000)).toBe(true);
    // The same address in another form is the same address.
    expect(allowsAddress(rules, "::ffff:127.0.0.1", 7000)).toBe(true);
    expect(allowsAddress(rules, "127.0.0.1", 7001)).toBe(false);
  });

  it("is empty when unset, and names the entry it cannot read", () => {
    expect(parseAllowList(undefined)).toEqual([]);
    expect(parseAllowList(" , ")).toEqual([]);
    expect(() => parseAllowList("searx.lan:99999")).toThrow(/"searx.lan:99999" has no valid port/);
    expect(() => parseAllowList("10.0.0.0/40")).toThrow(/"10.0.0.0\/40" has no valid prefix length/);
    expect(() => parseAllowList("searx lan")).toThrow(/"searx lan" is not a host name, an address or a range/);
    expect(() => parseAllowList("http://searx.lan")).toThrow(/http:\/\/searx.lan/);
  });
});
