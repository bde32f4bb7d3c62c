import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllowList } from "~/net/allow-list";
import { createOutboundFetch, OutboundError, OutboundRefused } from "~/net/outbound.server";

/**
 * The outbound guard over real HTTP on 127.0.0.1: a loopback server is exactly
 * what it must refuse by default, so each test allows one port and watches
 * what happens at the others.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let site: Awaited<ReturnType<typeof listen>>;
let internal: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  internal = await listen((_req, res) => res.end("internal secret"));
  site = await listen((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/hello":
        return void res.writeHead(200, { "content-type": "text/plain" }).end("hello");
      case "/echo-headers":
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers));
      case "/to-internal":
        return void res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/` }).end();
      case "/to-localhost":
        return void res.writeHead(301, { location: `http://localhost:${internal.port}/` }).end();
      case "/to-hello":
        return void res.writeHead(307, { location: "/hello" }).end();
      case "/to-file":
        return void res.writeHead(302, { location: "file:///etc/passwd" }).end();
      case "/loop":
        return void res.writeHead(302, { location: "/loop" }).end();
      case "/huge":
        res.writeHead(200, { "content-type": "text/plain" });
        // No Content-Length: the cap must hold while the body streams.
        for (let i = 0; i < 64; i += 1) res.write("x".repeat(1024));
        return void res.end();
      case "/huge-gzip": {
        const packed = gzipSync(Buffer.alloc(1024 * 1024, "a"));
        return void res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" }).end(packed);
      }
      case "/gzip":
        return void res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("packed text"));
      case "/hang":
        // Headers but never the end of the body.
        res.writeHead(200, { "content-type": "text/plain" });
        return void res.write("partial");
      case "/silent":
        return; // never answers
      default:
        return void res.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  for (const { server } of [site, internal]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const allowSite = () => parseAllowList(`127.0.0.1:${site.port}`);

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Error)) throw new Error("expected the fetch to fail");
  return error;
}

describe("the outbound guard", () => {
  it("refuses a loopback server by default, before any byte is sent", async () => {
    const fetch = createOutboundFetch();
    const error = await refusal(fetch(`http://127.0.0.1:${site.port}/hello`));
    expect(error).toBeInstanceOf(OutboundRefused);
    expect(error.message).toBe("refused: 127.0.0.1 is a loopback address");
    const written = await refusal(fetch(`http://0x7f.1:${site.port}/hello`));
    expect(written.message).toBe("refused: 127.0.0.1 is a loopback address");
    expect(site.hits).not.toContain("/hello");
  });

  it("refuses a host name that resolves to loopback (localhost)", async () => {
    const error = await refusal(createOutboundFetch().call(null, `http://localhost:${site.port}/hello`));
    expect(error).toBeInstanceOf(OutboundRefused);
    expect(error.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);
  });

  it("refuses a name that resolves to several addresses when any of them is internal", async () => {
    const fetch = createOutboundFetch({ resolve: async () => ["93.184.215.14", "10.0.0.5"] });
    const error = await refusal(fetch("http://mixed.example/"));
    expect(error.message).toBe("refused: mixed.example resolves to 10.0.0.5, a private address");
  });

  it("refuses other schemes and the metadata service by name", async () => {
    const fetch = createOutboundFetch();
    expect((await refusal(fetch("file:///etc/passwd"))).message).toMatch(/not file/);
    expect((await refusal(fetch("http://metadata.google.internal/computeMetadata/v1/"))).message).toBe(
      "refused: metadata.google.internal is the cloud metadata service",
    );
  });

  it("fetches an allow-listed address, and connects to the address it checked", async () => {
    // The name resolves (once, here) to the allowed address: the connection goes there, not to DNS again.
    const resolved: string[] = [];
    const fetch = createOutboundFetch({
      allow: allowSite(),
      resolve: async (host) => {
        resolved.push(host);
        return ["127.0.0.1"];
      },
    });
    const direct = await fetch(`http://127.0.0.1:${site.port}/hello`);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toBe("hello");
    const byName = await fetch(`http://search.invalid:${site.port}/hello`);
    expect(await byName.text()).toBe("hello");
    expect(resolved).toEqual(["search.invalid"]);
  });

  it("allows by port: the same address on another port stays refused", async () => {
    const error = await refusal(createOutboundFetch({ allow: allowSite() })(`http://127.0.0.1:${internal.port}/`));
    expect(error.message).toBe("refused: 127.0.0.1 is a loopback address");
    expect(internal.hits).toEqual([]);
  });

  it("checks every redirect: one from an allowed server to an internal one is refused", async () => {
    const fetch = createOutboundFetch({ allow: allowSite() });
    const error = await refusal(fetch(`http://127.0.0.1:${site.port}/to-internal`));
    expect(error).toBeInstanceOf(OutboundRefused);
    expect(error.message).toBe("refused: 127.0.0.1 is a loopback address");
    expect(internal.hits).toEqual([]);
    expect((await refusal(fetch(`http://127.0.0.1:${site.port}/to-localhost`))).message).toMatch(
      /^refused: localhost resolves to/,
    );
    expect((await refusal(fetch(`http://127.0.0.1:${site.port}/to-file`))).message).toMatch(/not file/);
    expect((await refusal(fetch(`http://127.0.0.1:${site.port}/loop`))).message).toBe("refused: more than 5 redirects");
  });

  it("follows an allowed redirect and says so", async () => {
    const response = await createOutboundFetch({ allow: allowSite() })(`http://127.0.0.1:${site.port}/to-hello`);
    expect(await response.text()).toBe("hello");
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`http://127.0.0.1:${site.port}/hello`);
  });

  it("cuts a body past the cap, also when it is compressed", async () => {
    const fetch = createOutboundFetch({ allow: allowSite(), maxBytes: 16 * 1024 });
    const huge = await fetch(`http://127.0.0.1:${site.port}/huge`);
    expect(huge.status).toBe(200);
    const error = await refusal(huge.text());
    expect(error).toBeInstanceOf(OutboundError);
    expect(error.message).toBe("the answer is larger than 16 KB");
    const bomb = await refusal(fetch(`http://127.0.0.1:${site.port}/huge-gzip`).then((response) => response.text()));
    expect(bomb.message).toBe("the answer is larger than 16 KB");
    expect(await (await fetch(`http://127.0.0.1:${site.port}/gzip`)).text()).toBe("packed text");
  });

  it("cuts a server that hangs, before or during the body, at the one deadline", async () => {
    const fetch = createOutboundFetch({ allow: allowSite(), timeoutMs: 300 });
    const silent = await refusal(fetch(`http://127.0.0.1:${site.port}/silent`));
    expect(silent).toBeInstanceOf(OutboundError);
    expect(silent.message).toMatch(/^no complete answer within/);
    const hanging = await fetch(`http://127.0.0.1:${site.port}/hang`);
    const cut = await refusal(hanging.text());
    expect(cut.message).toMatch(/^no complete answer within/);
  });

  it("keeps credentials from a redirect to another origin", async () => {
    const other = await listen((req, res) => res.end(JSON.stringify(req.headers)));
    try {
      const hop = await listen((_req, res) =>
        res.writeHead(302, { location: `http://127.0.0.1:${other.port}/` }).end(),
      );
      try {
        const fetch = createOutboundFetch({ allow: parseAllowList(`127.0.0.1:${hop.port},127.0.0.1:${other.port}`) });
        const response = await fetch(`http://127.0.0.1:${hop.port}/`, {
          headers: { authorization: "Bearer secret", "x-subscription-token": "key", accept: "application/json" },
        });
        const headers = (await response.json()) as Record<string, string>;
        expect(headers.authorization).toBeUndefined();
        expect(headers["x-subscription-token"]).toBeUndefined();
        expect(headers.accept).toBe("application/json");
      } finally {
        hop.server.close();
      }
    } finally {
      other.server.close();
    }
  });

  it("takes a Request and sends its method, headers and body, like fetch", async () => {
    const echo = await createOutboundFetch({ allow: allowSite() })(
      new Request(`http://127.0.0.1:${site.port}/echo-headers`, {
        method: "POST",
        body: "{}",
        headers: { "x-a": "1" },
      }),
    );
    expect(await echo.json()).toMatchObject({ "x-a": "1", "content-length": "2" });
  });
});
