/**
 * Where `npm start` has remix-serve listen (docs/configuration.md, `HOST`).
 *
 * Local mode accepts unsigned (emulator) ID tokens and session cookies: any
 * client that reaches the port can sign in as any account. So in local mode
 * the server listens on loopback only, like the emulators it starts, unless
 * HOST says otherwise. With a real project HOST is passed through as it is
 * (unset: every interface, remix-serve's default).
 */

export const LOOPBACK = "127.0.0.1";

export interface ListenPlan {
  /** The HOST to give remix-serve; undefined: every interface. */
  host: string | undefined;
  /** Lines to print at start. */
  notice: string[];
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

export function listenPlan(mode: "local" | "real", env: { HOST?: string }, port: string): ListenPlan {
  const requested = env.HOST?.trim() || undefined;
  if (mode === "real") {
    return { host: requested, notice: [`Listening on ${requested ?? "every interface"}, port ${port}.`] };
  }
  const host = requested ?? LOOPBACK;
  const notice = [
    `Listening on ${host}:${port}. Local mode accepts unsigned emulator tokens, so it listens on loopback only unless HOST is set.`,
  ];
  if (!isLoopback(host)) {
    notice.push(
      `WARNING: HOST=${host} exposes local mode beyond this machine: anyone who can reach ${host}:${port} can forge a session for any account (unsigned tokens). Use it only on a network you trust.`,
    );
  }
  return { host, notice };
}

/** The address to open in a browser on this machine. */
export function localUrl(host: string | undefined, port: string): string {
  if (!host || isLoopback(host) || host === "0.0.0.0" || host === "::") return `http://localhost:${port}`;
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}
