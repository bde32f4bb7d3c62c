import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, waitFor } from "../../scripts/local/ports";

/**
 * PgBouncer in transaction mode in front of the machine's PostgreSQL server,
 * as managed services put their pooler in front of theirs
 * (docs/decisions/097): started by the test on a free loopback port with a
 * generated ini file in a temporary folder, no authentication of its own, and
 * every database of the server behind it under the same name.
 */
export interface PgBouncer {
  /** `databaseUrl` (a database on the server behind it) as reached through the pooler. */
  url(databaseUrl: string): string;
  /** Everything it logged so far. */
  output(): string;
  stop(): Promise<void>;
}

const CANDIDATES = [process.env.PGBOUNCER, "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"];

function pgbouncerBinary(): string | undefined {
  const found = CANDIDATES.find((file) => file && fs.existsSync(file));
  if (found) return found;
  const onPath = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" }).stdout.trim();
  return onPath || undefined;
}

/**
 * Why tests through the pooler cannot run here, or null when they can: they
 * need the PostgreSQL server (TEST_DATABASE_URL) and pgbouncer (.ci/run
 * installs Debian's).
 */
export function poolerUnavailable(): string | null {
  const missing = [
    process.env.TEST_DATABASE_URL ? null : "TEST_DATABASE_URL (a PostgreSQL server)",
    pgbouncerBinary() ? null : "pgbouncer (apt-get install pgbouncer, or PGBOUNCER=<path>)",
  ].filter(Boolean);
  return missing.length > 0 ? `skipped: needs ${missing.join(" and ")}` : null;
}

function iniFile(server: URL, port: number): string {
  const backend = [
    `host=${server.hostname}`,
    `port=${server.port || "5432"}`,
    `user=${decodeURIComponent(server.username || "postgres")}`,
    server.password ? `password=${decodeURIComponent(server.password)}` : "",
  ].join(" ");
  return [
    "[databases]",
    // Any database name: the server's database of that name.
    `* = ${backend}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    // No passwords at the pooler: it logs in to the server as the user above.
    "auth_type = any",
    "pool_mode = transaction",
    // Fewer server connections than the instances' pools together, as on a managed service.
    "default_pool_size = 10",
    "max_client_conn = 500",
    "",
  ].join("\n");
}

export async function startPgBouncer(serverUrl = process.env.TEST_DATABASE_URL!): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error(poolerUnavailable()!);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-pgbouncer-"));
  const ini = path.join(dir, "pgbouncer.ini");
  fs.writeFileSync(ini, iniFile(new URL(serverUrl), port));
  // PgBouncer refuses to run as root: then it drops to nobody, who must read the file.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(dir, 0o755);
  const child = spawn(binary, [...(asRoot ? ["-u", "nobody"] : []), ini], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const url = (databaseUrl: string) => {
    const through = new URL(databaseUrl);
    through.hostname = "127.0.0.1";
    through.port = String(port);
    return through.toString();
  };
  try {
    await waitFor("pgbouncer", () => answers(url(serverUrl)), 15_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${output}`, { cause: error });
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
