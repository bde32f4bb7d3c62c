import { describe, expect, it } from "vitest";
import { parseConfig } from "~/config.server";

/** METRICS_TOKEN, LOG_LEVEL and LOG_FORMAT (ADR 052): checked at boot like every variable. */
const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;
const realProject = {
  FIREBASE_SERVICE_ACCOUNT: JSON.stringify({ project_id: "acme-prod", client_email: "x@y", private_key: "k" }),
  FIREBASE_API_KEY: "key",
};

describe("metrics and log settings", () => {
  it("no METRICS_TOKEN: none (GET /metrics is a 404); a short or spaced one is refused, naming the variable", () => {
    expect(parseConfig(env({})).metricsToken).toBeUndefined();
    expect(parseConfig(env({ METRICS_TOKEN: "" })).metricsToken).toBeUndefined();
    expect(parseConfig(env({ METRICS_TOKEN: "0123456789abcdef" })).metricsToken).toBe("0123456789abcdef");
    expect(() => parseConfig(env({ METRICS_TOKEN: "short" }))).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(() => parseConfig(env({ METRICS_TOKEN: "0123456789 abcdef" }))).toThrow(
      /METRICS_TOKEN: must not contain spaces/,
    );
  });

  it("logs: info by default, pretty in local mode and JSON with a real project, either when asked", () => {
    expect(parseConfig(env({})).log).toEqual({ level: "info", format: "pretty" });
    expect(parseConfig(env(realProject)).log).toEqual({ level: "info", format: "json" });
    expect(parseConfig(env({ LOG_FORMAT: "json", LOG_LEVEL: "warn" })).log).toEqual({ level: "warn", format: "json" });
    expect(() => parseConfig(env({ LOG_LEVEL: "loud" }))).toThrow(/LOG_LEVEL/);
    expect(() => parseConfig(env({ LOG_FORMAT: "xml" }))).toThrow(/LOG_FORMAT/);
  });
});
