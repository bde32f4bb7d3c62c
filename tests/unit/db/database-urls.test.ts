import { describe, expect, it } from "vitest";
import { parseConfig } from "~/config.server";
import { listenUrl } from "~/db/client.server";

/**
 * What DATABASE_URL reaches and where what needs a session goes
 * (docs/decisions/097): the operator says whether DATABASE_URL is a
 * transaction pooler; LISTEN goes to DATABASE_DIRECT_URL when given, else to
 * DATABASE_URL unless it is one — then nothing listens (notices are polled).
 */
const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;
const DIRECT = "postgresql://app@db.example.com:5432/app";
const POOLER = "postgresql://app@pooler.example.com:6543/app";

describe("the database's URLs", () => {
  it("DATABASE_URL keeps its session unless the operator says it is a transaction pooler", () => {
    expect(parseConfig(env({ DATABASE_URL: DIRECT })).databasePoolMode).toBe("session");
    expect(parseConfig(env({ DATABASE_URL: POOLER, DATABASE_POOL_MODE: "transaction" })).databasePoolMode).toBe(
      "transaction",
    );
    expect(() => parseConfig(env({ DATABASE_URL: POOLER, DATABASE_POOL_MODE: "statement" }))).toThrow(
      /DATABASE_POOL_MODE/,
    );
  });

  it("DATABASE_DIRECT_URL is a postgresql:// URL, and only beside DATABASE_URL", () => {
    expect(parseConfig(env({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: DIRECT })).databaseDirectUrl).toBe(DIRECT);
    expect(() => parseConfig(env({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: "db.example.com:5432" }))).toThrow(
      /DATABASE_DIRECT_URL: must be a postgresql:\/\/ URL/,
    );
    expect(() => parseConfig(env({ DATABASE_DIRECT_URL: DIRECT }))).toThrow(/without DATABASE_URL/);
  });

  it("LISTEN goes to the direct URL, else to DATABASE_URL unless it is a transaction pooler", () => {
    const listen = (vars: Record<string, string>) => listenUrl(parseConfig(env(vars)));
    expect(listen({ DATABASE_URL: DIRECT })).toBe(DIRECT);
    expect(listen({ DATABASE_URL: POOLER, DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: DIRECT })).toBe(
      DIRECT,
    );
    expect(listen({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: DIRECT })).toBe(DIRECT);
    expect(listen({ DATABASE_URL: POOLER, DATABASE_POOL_MODE: "transaction" })).toBeUndefined();
  });
});
