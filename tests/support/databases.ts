/**
 * The PostgreSQL databases data-layer tests run against: the embedded PGlite
 * started by global-setup.ts, and the machine's PostgreSQL server when
 * TEST_DATABASE_URL is set (CI).
 */
export function testDatabases(): Array<{ name: string; url: string }> {
  const databases = [{ name: "PGlite", url: process.env.TEST_PGLITE_URL! }];
  if (process.env.TEST_DATABASE_URL) databases.push({ name: "PostgreSQL server", url: process.env.TEST_DATABASE_URL });
  return databases;
}
