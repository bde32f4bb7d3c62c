import net from "node:net";

/** A free TCP port on loopback (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function splitHost(hostPort: string): { host: string; port: number } {
  const index = hostPort.lastIndexOf(":");
  return { host: hostPort.slice(0, index), port: Number(hostPort.slice(index + 1)) };
}

/** Waits until `check` resolves truthy, polling; throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what} did not start within ${timeoutMs / 1000} s`);
}
