import net from "node:net";

/**
 * A TCP proxy on loopback in front of a backend, for fault and latency
 * tests: "pass" forwards (optionally after `latencyMs` per chunk), "refuse"
 * drops every connection as if the backend had stopped, "stall" accepts
 * connections and never answers, "error" answers whatever is sent with an
 * HTTP 503 and closes (an error status to an HTTP/1.1 client such as the
 * identity service's; a protocol error to gRPC and PostgreSQL clients).
 */
export type FaultMode = "pass" | "refuse" | "stall" | "error";

const UNAVAILABLE =
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";

export interface FaultProxy {
  hostPort: string;
  mode: FaultMode;
  latencyMs: number;
  setMode(mode: FaultMode): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string, { latencyMs = 0 } = {}): Promise<FaultProxy> {
  const [targetHost, targetPort] = [
    target.slice(0, target.lastIndexOf(":")),
    Number(target.slice(target.lastIndexOf(":") + 1)),
  ];
  const open = new Set<net.Socket>();
  const delay = (fn: () => void) => (proxy.latencyMs > 0 ? setTimeout(fn, proxy.latencyMs) : fn());

  // No Nagle delay on either side: a request written in two pieces (headers,
  // then body) would otherwise wait ~40 ms for a delayed ACK — an artefact of
  // the proxy, not of the network it stands for.
  const server = net.createServer({ noDelay: true }, (client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => undefined);
    if (proxy.mode === "refuse") {
      client.destroy();
      return;
    }
    if (proxy.mode === "stall") return; // hold it open, never answer
    if (proxy.mode === "error") {
      client.once("data", () => client.end(UNAVAILABLE));
      return;
    }
    const upstream = net.connect({ port: targetPort, host: targetHost, noDelay: true });
    open.add(upstream);
    upstream.on("close", () => (open.delete(upstream), client.destroy()));
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.on("data", (chunk) => delay(() => upstream.write(chunk)));
    upstream.on("data", (chunk) => delay(() => client.write(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;

  const proxy: FaultProxy = {
    hostPort: `127.0.0.1:${port}`,
    mode: "pass",
    latencyMs,
    setMode(mode) {
      proxy.mode = mode;
      // Existing connections go too: a stopped or stalled backend affects
      // calls on kept-alive connections as well as new ones, and a healed one
      // must not leave clients waiting on a stalled connection.
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
