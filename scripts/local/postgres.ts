import fs from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * Embedded PostgreSQL (PGlite) served over the Postgres protocol on loopback,
 * so the app reaches it through node-postgres exactly as a real server.
 * `dataDir` undefined keeps it in memory (tests).
 */
export async function startEmbeddedPostgres({
  dataDir,
  host = "127.0.0.1",
  port = 0,
}: {
  dataDir?: string;
  host?: string;
  port?: number;
}) {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  // pg_trgm: history and inbox search read substrings through trigram indexes (docs/decisions/102).
  const db = await PGlite.create(dataDir ?? "memory://", { extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, host, port, maxConnections: 16 });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgresql://postgres:postgres@${address}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
