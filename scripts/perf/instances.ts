import autocannon from "autocannon";
import { freshDatabase, machineLine, option, percentile, startAppUnderTest, writeBenchmarks } from "./app-under-test";

/**
 * `npm run bench -- --instances N`: throughput of the app served by 1 and by N
 * remix-serve instances side by side, against one PostgreSQL server (a fresh
 * database on it, dropped after), as docs/operations.md runs it.
 * Each page is driven for `--duration` seconds by `--connections` clients in
 * all, spread evenly over the instances (a proxy's round robin), and the
 * figures are written to docs/benchmarks.md ("Instances"). The load generator
 * runs on the same machine and takes a share of its cores: the gain of N
 * instances is bounded by the cores left for them.
 *
 *   npm run bench -- --instances 2 [--duration 10] [--connections 32]
 *                    [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const durationSeconds = Number(option("duration", "10"));
const totalConnections = Number(option("connections", "32"));
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");

interface Figures {
  instances: number;
  page: string;
  rps: number;
  p50: number;
  p95: number;
  errors: number;
}

/** Drives `path` on every instance at once; one set of figures for them all. */
async function drive(baseUrls: string[], path: string, headers: Record<string, string>) {
  const times: number[] = [];
  let errors = 0;
  const perInstance = Math.max(1, Math.round(totalConnections / baseUrls.length));
  const results = await Promise.all(
    baseUrls.map(
      (baseUrl) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const run = autocannon(
            { url: `${baseUrl}${path}`, connections: perInstance, duration: durationSeconds, headers },
            (error, done) => (error ? reject(error) : resolve(done)),
          );
          run.on("response", (_client, status, _bytes, responseTime) => {
            if (status >= 400) errors++;
            times.push(responseTime);
          });
        }),
    ),
  );
  times.sort((a, b) => a - b);
  const rps = results.reduce((sum, result) => sum + result.requests.total, 0) / durationSeconds;
  return {
    rps,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    errors: errors + results.reduce((sum, r) => sum + r.errors, 0),
  };
}

async function measureWith(instances: number): Promise<Figures[]> {
  const database = await freshDatabase(serverDatabaseUrl, `instances${instances}`);
  const app = await startAppUnderTest({
    name: `instances-${instances}`,
    models: ["bench-model"],
    databaseUrl: database.url,
    instances,
    logFile: "/dev/null",
    env: { LOG_LEVEL: "warn" },
  });
  try {
    // One session for every instance: they share the backends, so any of them accepts it.
    const { cookie } = await app.signIn("");
    const pages: Array<[string, string, Record<string, string>]> = [
      ["/ (logged out)", "/", {}],
      ["/dashboard (logged in)", "/dashboard", { cookie }],
      ["/nuvara (logged in)", "/nuvara", { cookie }],
    ];
    const figures: Figures[] = [];
    for (const [page, path, headers] of pages) {
      await drive(app.baseUrls, path, headers); // warm-up: caches, JIT, pool
      figures.push({ instances, page, ...(await drive(app.baseUrls, path, headers)) });
      console.log(`  ${instances} instance(s) · ${page}: ${figures.at(-1)!.rps.toFixed(0)} req/s`);
    }
    return figures;
  } finally {
    await app.stop();
    await database.drop();
  }
}

export async function benchInstances(count: number) {
  if (!Number.isInteger(count) || count < 1 || count > 16)
    throw new Error("--instances takes a whole number from 1 to 16.");
  console.log(
    `Throughput with 1 and ${count} instance(s), ${totalConnections} connections, ${durationSeconds} s per page…`,
  );
  const figures = [...(await measureWith(1)), ...(count > 1 ? await measureWith(count) : [])];
  const one = new Map(figures.filter((f) => f.instances === 1).map((f) => [f.page, f.rps]));
  const rows = figures.map(
    (f) =>
      `| ${f.page} | ${f.instances} | ${f.rps.toFixed(0)} | ${(f.rps / one.get(f.page)!).toFixed(2)}× | ${f.p50.toFixed(0)} | ${f.p95.toFixed(0)} | ${f.errors} |`,
  );
  const text = [
    `## Instances: throughput with several remix-serve processes (PostgreSQL server)`,
    "",
    `\`npm run bench -- --instances ${count}\`, ${new Date().toISOString().slice(0, 10)}, ${machineLine()}. ` +
      `${totalConnections} connections in all, spread over the instances, ${durationSeconds} s per page after a warm-up; ` +
      "the load generator shares the machine's cores with the instances and the backends.",
    "",
    "| page | instances | req/s | vs 1 | p50 ms | p95 ms | errors |",
    "|------|-----------|-------|------|--------|--------|--------|",
    ...rows,
  ].join("\n");
  console.log(`\n${text}\n`);
  if (!process.argv.includes("--no-write")) writeBenchmarks("instances", text);
}
