import ipaddr from "ipaddr.js";
import { parseAddress, type ParsedAddress } from "./addresses";

/**
 * The operator's allow list (OUTBOUND_ALLOW, docs/configuration.md): the
 * internal places outbound requests may reach anyway, such as a self-hosted
 * SearXNG. Entries are comma-separated: a host name (`searx.lan`), an
 * address (`10.0.0.5`, `[fd00::5]`), a range (`10.0.0.0/24`, `fd00::/8`),
 * each with an optional port (`searx.lan:8888`, `127.0.0.1:8888`,
 * `[::1]:8888`, `10.0.0.0/24:8080`). An entry with a port allows only that
 * port.
 */

export type AllowRule =
  | { kind: "host"; host: string; port?: number; text: string }
  | { kind: "range"; range: [ParsedAddress, number]; port?: number; text: string };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Throws with a message naming the entry when one cannot be read. */
export function parseAllowList(value: string | undefined): AllowRule[] {
  if (!value) return [];
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(parseEntry);
}

function parseEntry(text: string): AllowRule {
  const { target, port } = splitPort(text);
  const range = parseRange(target);
  if (range) return { kind: "range", range, port, text };
  if (HOST_NAME.test(target)) return { kind: "host", host: normalHost(target), port, text };
  throw new Error(`"${text}" is not a host name, an address or a range (e.g. searx.lan:8888, 10.0.0.0/24)`);
}

/** "[::1]:8888", "host:8888", "10.0.0.0/24:80"; a bare IPv6 address (two colons or more) has no port. */
function splitPort(text: string): { target: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](\/\d+)?(?::(\d+))?$/.exec(text);
  if (bracketed) return { target: `${bracketed[1]}${bracketed[2] ?? ""}`, port: portOf(bracketed[3], text) };
  const colons = text.split(":").length - 1;
  if (colons !== 1) return { target: text };
  const [target, port] = text.split(":");
  return { target, port: portOf(port, text) };
}

function portOf(digits: string | undefined, text: string): number | undefined {
  if (digits === undefined) return undefined;
  const port = Number(digits);
  if (!/^\d{1,5}$/.test(digits) || port < 1 || port > 65535) throw new Error(`"${text}" has no valid port`);
  return port;
}

function parseRange(target: string): [ParsedAddress, number] | undefined {
  const [addressText, prefixText, ...rest] = target.split("/");
  if (rest.length > 0) return undefined;
  const address = parseAddress(addressText);
  if (!address) return undefined;
  const bits = address.kind() === "ipv4" ? 32 : 128;
  if (prefixText === undefined) return [address, bits];
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) throw new Error(`"${target}" has no valid prefix length`);
  return [address, prefix];
}

export function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

function portMatches(rule: AllowRule, port: number): boolean {
  return rule.port === undefined || rule.port === port;
}

/** The operator named this host (and port): whatever it resolves to may be reached. */
export function allowsHost(rules: readonly AllowRule[], host: string, port: number): boolean {
  const name = normalHost(host);
  return rules.some((rule) => rule.kind === "host" && rule.host === name && portMatches(rule, port));
}

/** The operator allowed this address (and port) by address or range. */
export function allowsAddress(rules: readonly AllowRule[], address: string, port: number): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  return rules.some(
    (rule) =>
      rule.kind === "range" &&
      rule.range[0].kind() === parsed.kind() &&
      parsed.match(rule.range as [ipaddr.IPv4 | ipaddr.IPv6, number]) &&
      portMatches(rule, port),
  );
}
