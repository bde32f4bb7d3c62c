import { describe, expect, it } from "vitest";
import { parseConfig } from "~/config.server";

const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;

describe("configuration", () => {
  it("local mode by default, with the demo project and emulator defaults", () => {
    const config = parseConfig(env({}));
    expect(config.mode).toBe("local");
    expect(config.projectId).toBe("demo-nuvara");
    expect(config.authEmulatorHost).toBe("127.0.0.1:9099");
    expect(config.firestoreEmulatorHost).toBe("127.0.0.1:8080");
    expect(config.sessionDays).toBe(5);
    expect(config.publicFirebase.authEmulatorUrl).toBe("http://127.0.0.1:9099");
  });

  it("a project id alone does not make a real project", () => {
    expect(parseConfig(env({ FIREBASE_PROJECT_ID: "demo-other" })).mode).toBe("local");
  });

  it("a service account makes a real project; the web config is required then", () => {
    const serviceAccount = JSON.stringify({ project_id: "acme-prod", client_email: "x@y", private_key: "k" });
    const config = parseConfig(env({ FIREBASE_SERVICE_ACCOUNT: serviceAccount, FIREBASE_API_KEY: "key" }));
    expect(config.mode).toBe("real");
    expect(config.projectId).toBe("acme-prod");
    expect(config.authEmulatorHost).toBeUndefined();
    expect(() => parseConfig(env({ FIREBASE_SERVICE_ACCOUNT: serviceAccount }))).toThrow(/FIREBASE_API_KEY/);
    expect(() => parseConfig(env({ FIREBASE_SERVICE_ACCOUNT: "{not json" }))).toThrow(/service account/);
  });

  it("refuses an emulator variable for a project that is not a demo- project", () => {
    expect(() =>
      parseConfig(env({ FIREBASE_PROJECT_ID: "acme-prod", FIREBASE_AUTH_EMULATOR_HOST: "127.0.0.1:9099" })),
    ).toThrow(/not a demo- project/);
    expect(() =>
      parseConfig(
        env({
          GOOGLE_APPLICATION_CREDENTIALS: "/tmp/sa.json",
          FIREBASE_PROJECT_ID: "acme-prod",
          FIREBASE_API_KEY: "k",
          FIRESTORE_EMULATOR_HOST: "127.0.0.1:8080",
        }),
      ),
    ).toThrow(/not a demo- project/);
  });

  it("SESSION_DAYS must be 1–14", () => {
    expect(parseConfig(env({ SESSION_DAYS: "14" })).sessionDays).toBe(14);
    expect(() => parseConfig(env({ SESSION_DAYS: "0" }))).toThrow(/SESSION_DAYS/);
    expect(() => parseConfig(env({ SESSION_DAYS: "15" }))).toThrow(/SESSION_DAYS/);
  });

  it("the session rate limit is never tighter than 30 a minute", () => {
    expect(() => parseConfig(env({ SESSION_RATE_LIMIT_PER_MINUTE: "10" }))).toThrow(/SESSION_RATE_LIMIT_PER_MINUTE/);
  });
});
