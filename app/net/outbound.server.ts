import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { getConfig } from "~/config.server";
import { blockedReason, isMetadataName, parseAddress } from "./addresses";
import { allowsAddress, allowsHost, type AllowRule } from "./allow-list";

/**
 * Every request the server makes on a tool's behalf goes through here
 * (docs/decisions/088): only http and https, only to public addresses unless
 * the operator allows an internal one (OUTBOUND_ALLOW), connected to the very
 * address that was checked (no second DNS lookup a rebinding name could
 * answer differently), redirects followed by hand and each one checked, one
 * deadline for the whole exchange and a cap on the body.
 *
 * `createOutboundFetch` returns a function with fetch's signature, so
 * anything that takes a `fetch` (the MCP SDK's transports) can be given it.
 */

/** Failures with a message fit to show the model and the user. */
export class OutboundError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OutboundError";
  }
}

/** The guard said no: the scheme, the address, or a redirect. */
export class OutboundRefused extends OutboundError {
  constructor(message: string) {
    super(`refused: ${message}`);
    this.name = "OutboundRefused";
  }
}

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<string[]>;

export interface OutboundOptions {
  /** The operator's allow list (OUTBOUND_ALLOW). */
  allow?: readonly AllowRule[];
  /** One deadline for the whole exchange: connecting, redirects, headers and body. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** The most body bytes (after decompression) read before the body fails. */
  maxBytes?: number;
  /** DNS; tests may answer names themselves. */
  resolve?: Resolve;
}

export const OUTBOUND_DEFAULTS = { timeoutMs: 15_000, maxRedirects: 5, maxBytes: 5 * 1024 * 1024 };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin keeps: no credentials follow a page elsewhere. */
const CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-language", "user-agent", "content-type"]);
const NULL_BODY = new Set([101, 204, 205, 304]);

const systemResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export function createOutboundFetch(options: OutboundOptions = {}): OutboundFetch {
  const settings = {
    allow: options.allow ?? [],
    timeoutMs: options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs,
    maxRedirects: options.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects,
    maxBytes: options.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes,
    resolve: options.resolve ?? systemResolve,
  };
  return (input, init) => guardedFetch(new Request(input, init), settings);
}

/** With the operator's allow list from the configuration. */
export function outboundFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return createOutboundFetch({ allow: getConfig().outbound.allow })(input, init);
}

type Settings = Required<OutboundOptions>;

async function guardedFetch(request: Request, settings: Settings): Promise<Response> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new OutboundError(`no complete answer within ${Math.round(settings.timeoutMs / 1000)} s`)),
    settings.timeoutMs,
  );
  const signal = AbortSignal.any([deadline.signal, request.signal]);
  const done = () => clearTimeout(timer);
  try {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    let hop: Hop = { url: new URL(request.url), method: request.method, headers: headersOf(request), body };
    for (let redirects = 0; ; redirects += 1) {
      const answer = await exchange(hop, settings, signal);
      const location = answer.headers.location;
      if (!REDIRECTS.has(answer.statusCode ?? 0) || !location || request.redirect === "manual") {
        return toResponse(answer, hop.url, redirects > 0, settings.maxBytes, signal, done);
      }
      answer.resume();
      if (request.redirect === "error") throw new OutboundError("the address redirected elsewhere");
      if (redirects >= settings.maxRedirects) throw new OutboundRefused(`more than ${settings.maxRedirects} redirects`);
      hop = nextHop(hop, answer.statusCode!, location);
    }
  } catch (error) {
    done();
    throw signal.aborted ? reasonOf(signal) : error;
  }
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new OutboundError("the request was aborted");
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // Decompressed here (below), counted against the cap as it is decompressed.
  headers["accept-encoding"] = "gzip, deflate, br";
  return headers;
}

/** The redirect's target, as fetch would ask it: 303 (and 301/302 after a POST) become a GET without body. */
function nextHop(hop: Hop, status: number, location: string): Hop {
  let url: URL;
  try {
    url = new URL(location, hop.url);
  } catch {
    throw new OutboundError("the address redirected to an address that cannot be read");
  }
  const toGet = status === 303 || ((status === 301 || status === 302) && hop.method === "POST");
  const sameOrigin = url.origin === hop.url.origin;
  const headers = Object.fromEntries(
    Object.entries(hop.headers).filter(
      ([name]) =>
        (sameOrigin || CROSS_ORIGIN_HEADERS.has(name) || name === "accept-encoding") &&
        !(toGet && name === "content-type"),
    ),
  );
  return toGet ? { url, method: "GET", headers } : { ...hop, url, headers };
}

/** The addresses a URL may be reached at, each checked; refused when any of them may not be reached. */
async function checkedAddresses(url: URL, settings: Settings): Promise<string[]> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefused(`only http and https addresses are fetched, not ${url.protocol.replace(/:$/, "")}`);
  }
  if (url.username || url.password) throw new OutboundRefused("addresses with credentials are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = portOf(url);
  if (allowsHost(settings.allow, host, port)) return parseAddress(host) ? [host] : resolveAll(host, settings);
  if (isMetadataName(host)) throw new OutboundRefused(`${host} is the cloud metadata service`);
  const literal = parseAddress(host);
  const addresses = literal ? [host] : await resolveAll(host, settings);
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (reason && !allowsAddress(settings.allow, address, port)) {
      throw new OutboundRefused(literal ? `${host} is ${reason}` : `${host} resolves to ${address}, ${reason}`);
    }
  }
  return addresses;
}

async function resolveAll(host: string, settings: Settings): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await settings.resolve(host);
  } catch {
    throw new OutboundError(`${host} could not be found`);
  }
  if (addresses.length === 0) throw new OutboundError(`${host} could not be found`);
  return addresses;
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** A lookup that answers only the checked addresses: the connection goes where the check looked. */
function pinnedLookup(addresses: string[]): LookupFunction {
  const entries: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  return (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, all: LookupAddress[]) => void)(null, entries);
    else callback(null, entries[0].address, entries[0].family);
  };
}

async function exchange(hop: Hop, settings: Settings, signal: AbortSignal): Promise<IncomingMessage> {
  const addresses = await checkedAddresses(hop.url, settings);
  signal.throwIfAborted();
  const client = hop.url.protocol === "https:" ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = client.request(
      {
        protocol: hop.url.protocol,
        host: hop.url.hostname.replace(/^\[|\]$/g, ""),
        port: portOf(hop.url),
        path: `${hop.url.pathname}${hop.url.search}`,
        method: hop.method,
        headers: hop.headers,
        lookup: pinnedLookup(addresses),
        // A fresh connection each time: none is reused from an earlier answer for the name.
        agent: false,
        signal,
      },
      resolve,
    );
    outgoing.on("error", (error) =>
      reject(
        signal.aborted ? reasonOf(signal) : new OutboundError(`${hop.url.host} could not be reached`, { cause: error }),
      ),
    );
    outgoing.end(hop.body);
  });
}

function decoded(answer: IncomingMessage): Readable {
  switch ((answer.headers["content-encoding"] ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return answer.pipe(zlib.createGunzip());
    case "deflate":
      return answer.pipe(zlib.createInflate());
    case "br":
      return answer.pipe(zlib.createBrotliDecompress());
    default:
      return answer;
  }
}

/** The answer as a fetch Response whose body fails past `maxBytes` or the deadline. */
function toResponse(
  answer: IncomingMessage,
  url: URL,
  redirected: boolean,
  maxBytes: number,
  signal: AbortSignal,
  done: () => void,
): Response {
  const status = answer.statusCode ?? 502;
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name === "content-encoding" || name === "content-length") continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const declared = Number(answer.headers["content-length"]);
  let body: ReadableStream<Uint8Array> | null = null;
  if (NULL_BODY.has(status) || answer.headers["content-length"] === "0") {
    answer.resume();
    done();
  } else if (Number.isFinite(declared) && declared > maxBytes && !answer.headers["content-encoding"]) {
    answer.destroy();
    done();
    body = failingBody(tooLarge(maxBytes));
  } else {
    body = cappedBody(decoded(answer), answer, maxBytes, signal, done);
  }
  const response = new Response(body, {
    status: status < 200 || status > 599 ? 502 : status,
    statusText: answer.statusMessage,
    headers,
  });
  Object.defineProperty(response, "url", { value: url.href });
  Object.defineProperty(response, "redirected", { value: redirected });
  return response;
}

function tooLarge(maxBytes: number): OutboundError {
  return new OutboundError(`the answer is larger than ${Math.round(maxBytes / 1024)} KB`);
}

function failingBody(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.error(error) });
}

function cappedBody(
  source: Readable,
  answer: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  done: () => void,
): ReadableStream<Uint8Array> {
  let received = 0;
  let finished = false;
  const finish = () => {
    finished = true;
    done();
    signal.removeEventListener("abort", onAbort);
    answer.destroy();
    source.destroy();
  };
  let fail: (error: Error) => void = () => undefined;
  const onAbort = () => fail(reasonOf(signal));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      fail = (error) => {
        if (finished) return;
        finish();
        controller.error(error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      source.on("data", (chunk: Buffer) => {
        if (finished) return;
        received += chunk.length;
        if (received > maxBytes) return fail(tooLarge(maxBytes));
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.on("end", () => {
        if (finished) return;
        finish();
        controller.close();
      });
      source.on("error", () => fail(new OutboundError("the answer broke off")));
      answer.on("aborted", () => fail(new OutboundError("the answer broke off")));
    },
    pull() {
      source.resume();
    },
    cancel() {
      finish();
    },
  });
}
