import { spawn } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVER_BUILD } from "../../scripts/build-if-stale";
import { freePort } from "../../scripts/local/ports";
import { buildApp } from "../support/app-process";

/**
 * The operators' contract (docs/operations.md, "Boot"): `remix-serve
 * build/index.js`, as operators run it, validates the whole configuration
 * when it loads the build and exits non-zero at once with the reason.
 * Before, it listened and answered every page with 500 while a supervisor
 * believed it was up.
 */

beforeAll(async () => {
  await buildApp();
}, 180_000);

interface Outcome {
  code: number | null;
  stderr: string;
  /** Whether anything answered on the port while it ran. */
  listened: boolean;
}

async function serveWith(env: Record<string, string>): Promise<Outcome> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.resolve("node_modules/@remix-run/serve/dist/cli.js"), SERVER_BUILD], {
    stdio: ["ignore", "ignore", "pipe"],
    // Only what an operator would set: the test's own backends are not inherited.
    env: { PATH: process.env.PATH, NODE_ENV: "production", PORT: String(port), ...env },
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let listened = false;
  const probing = (async () => {
    while (child.exitCode === null) {
      if (
        await fetch(`http://127.0.0.1:${port}/livez`).then(
          () => true,
          () => false,
        )
      )
        listened = true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await exited;
  clearTimeout(timer);
  await probing;
  return { code, stderr, listened };
}

const REAL_PROJECT = {
  FIREBASE_SERVICE_ACCOUNT: JSON.stringify({
    project_id: "nuvara-prod",
    client_email: "x@nuvara-prod.iam.gserviceaccount.com",
  }),
  FIREBASE_API_KEY: "key",
};

const MISCONFIGURATIONS: Array<{ problem: string; env: Record<string, string>; says: RegExp }> = [
  {
    problem: "an emulator variable for a project that is not demo- (the issue's example)",
    env: { FIREBASE_PROJECT_ID: "nuvara-prod", FIREBASE_AUTH_EMULATOR_HOST: "127.0.0.1:1" },
    says: /emulator variable is set for project "nuvara-prod"/,
  },
  { problem: "a URL that is not one", env: { APP_URL: "not a url" }, says: /APP_URL/ },
  { problem: "a number that is not one", env: { BACKEND_TIMEOUT_MS: "soon" }, says: /BACKEND_TIMEOUT_MS/ },
  { problem: "SESSION_DAYS out of range", env: { SESSION_DAYS: "30" }, says: /SESSION_DAYS/ },
  {
    problem: "a credential that is not JSON",
    env: { FIREBASE_SERVICE_ACCOUNT: "{not json", FIREBASE_API_KEY: "key" },
    says: /FIREBASE_SERVICE_ACCOUNT must be the service account's JSON/,
  },
  {
    problem: "a real project without its web config",
    env: { FIREBASE_SERVICE_ACCOUNT: REAL_PROJECT.FIREBASE_SERVICE_ACCOUNT },
    says: /FIREBASE_API_KEY/,
  },
  {
    problem: "an unknown role syntax in the daily quotas",
    env: { QUOTA_DAILY_MESSAGES: "premium=lots" },
    says: /QUOTA_DAILY_MESSAGES/,
  },
  {
    problem: "a message length cap that is not a number",
    env: { MESSAGE_MAX_CHARS: "none=long" },
    says: /MESSAGE_MAX_CHARS/,
  },
  {
    problem: "an unknown role syntax in the role models",
    env: { LLM_ROLE_MODELS: "premium" },
    says: /LLM_ROLE_MODELS/,
  },
  { problem: "a TRUST_PROXY that is not a count", env: { TRUST_PROXY: "yes" }, says: /TRUST_PROXY/ },
  {
    problem: "an SMTP_URL that is not an SMTP server's",
    env: { SMTP_URL: "https://mail.example.com" },
    says: /SMTP_URL: must start with smtp:\/\/ or smtps:\/\//,
  },
  {
    problem: "a login provider Firebase has no such id for",
    env: { AUTH_PROVIDERS: "password,github" },
    says: /AUTH_PROVIDERS: "github" is not a login provider/,
  },
  {
    problem: "an SSO provider without a name for its button",
    env: { AUTH_PROVIDERS: "password,oidc.acme" },
    says: /add oidc.acme=<Name> to AUTH_PROVIDER_NAMES/,
  },
  {
    problem: "a provider name that is not provider=Name",
    env: { AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme:Acme" },
    says: /AUTH_PROVIDER_NAMES: "oidc.acme:Acme" is not provider=Name/,
  },
];

describe("remix-serve build/index.js refuses to start on a bad configuration", () => {
  for (const { problem, env, says } of MISCONFIGURATIONS) {
    it(`${problem}: exits non-zero at once, saying what is wrong, without listening`, async () => {
      const outcome = await serveWith(env);
      expect(outcome.code, outcome.stderr).not.toBe(0);
      expect(outcome.code, outcome.stderr).not.toBeNull();
      expect(outcome.stderr).toMatch(/Nuvara² cannot start/);
      expect(outcome.stderr).toMatch(says);
      expect(outcome.listened).toBe(false);
    }, 30_000);
  }
});
