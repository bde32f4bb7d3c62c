import { z } from "zod";

/**
 * Server configuration, read once from the environment and validated, so a
 * mistake fails at boot with a clear message instead of at the first request.
 */

const DEFAULT_PROJECT_ID = "demo-nuvara";

const emptyToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

const envSchema = z.object({
  NODE_ENV: optionalString,
  FIREBASE_PROJECT_ID: optionalString,
  FIREBASE_SERVICE_ACCOUNT: optionalString,
  GOOGLE_APPLICATION_CREDENTIALS: optionalString,
  FIREBASE_API_KEY: optionalString,
  FIREBASE_AUTH_DOMAIN: optionalString,
  FIREBASE_APP_ID: optionalString,
  FIREBASE_AUTH_EMULATOR_HOST: optionalString,
  FIRESTORE_EMULATOR_HOST: optionalString,
  SESSION_DAYS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(14).default(5),
  ),
  AUTH_CACHE_TTL_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().min(0).max(30).default(30),
  ),
  BACKEND_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(100).max(30_000).default(3_000),
  ),
  APP_URL: z.preprocess(emptyToUndefined, z.url().optional()),
  TRUST_PROXY: optionalString,
  DATABASE_URL: optionalString,
  SESSION_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(30).max(10_000).default(30),
  ),
});

export type Mode = "real" | "local";

export interface Config {
  mode: Mode;
  projectId: string;
  serviceAccount?: Record<string, unknown>;
  authEmulatorHost?: string;
  firestoreEmulatorHost?: string;
  sessionDays: number;
  authCacheTtlMs: number;
  backendTimeoutMs: number;
  appOrigin?: string;
  trustProxy: boolean;
  databaseUrl?: string;
  sessionRateLimitPerMinute: number;
  /** Sent to the browser: only public values (the web config is public by design). */
  publicFirebase: {
    apiKey: string;
    authDomain?: string;
    projectId: string;
    appId?: string;
    authEmulatorUrl?: string;
  };
}

export class ConfigError extends Error {}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
      .join("; ");
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;

  let serviceAccount: Record<string, unknown> | undefined;
  if (e.FIREBASE_SERVICE_ACCOUNT) {
    try {
      serviceAccount = JSON.parse(e.FIREBASE_SERVICE_ACCOUNT);
    } catch {
      throw new ConfigError("FIREBASE_SERVICE_ACCOUNT must be the service account's JSON.");
    }
  }
  // A real project needs a credential; a project id alone never makes one.
  const mode: Mode =
    serviceAccount || e.GOOGLE_APPLICATION_CREDENTIALS ? "real" : "local";

  const projectId =
    e.FIREBASE_PROJECT_ID ??
    (typeof serviceAccount?.project_id === "string" ? serviceAccount.project_id : undefined) ??
    (mode === "local" ? DEFAULT_PROJECT_ID : undefined);
  if (!projectId) throw new ConfigError("FIREBASE_PROJECT_ID is required with a real project.");

  const authEmulatorHost =
    e.FIREBASE_AUTH_EMULATOR_HOST ?? (mode === "local" ? "127.0.0.1:9099" : undefined);
  const firestoreEmulatorHost =
    e.FIRESTORE_EMULATOR_HOST ?? (mode === "local" ? "127.0.0.1:8080" : undefined);

  // An emulator accepts unsigned tokens: pointed at a real project it would let
  // anyone forge a session. A demo- project never reaches Google.
  if ((authEmulatorHost || firestoreEmulatorHost) && !projectId.startsWith("demo-")) {
    throw new ConfigError(
      `Refusing to start: an emulator variable is set for project "${projectId}", which is not a demo- project. ` +
        "Unset FIREBASE_AUTH_EMULATOR_HOST / FIRESTORE_EMULATOR_HOST, or use a demo- project id.",
    );
  }
  if (mode === "real" && !e.FIREBASE_API_KEY) {
    throw new ConfigError("FIREBASE_API_KEY (the web app's config) is required with a real project.");
  }

  return {
    mode,
    projectId,
    serviceAccount,
    authEmulatorHost,
    firestoreEmulatorHost,
    sessionDays: e.SESSION_DAYS,
    authCacheTtlMs: e.AUTH_CACHE_TTL_SECONDS * 1000,
    backendTimeoutMs: e.BACKEND_TIMEOUT_MS,
    appOrigin: e.APP_URL ? new URL(e.APP_URL).origin : undefined,
    trustProxy: Boolean(e.TRUST_PROXY && e.TRUST_PROXY !== "0" && e.TRUST_PROXY !== "false"),
    databaseUrl: e.DATABASE_URL,
    sessionRateLimitPerMinute: e.SESSION_RATE_LIMIT_PER_MINUTE,
    publicFirebase: {
      apiKey: e.FIREBASE_API_KEY ?? "demo-api-key",
      // The popup flow needs an auth domain; the emulator serves its own handler.
      authDomain: e.FIREBASE_AUTH_DOMAIN ?? (mode === "local" ? `${projectId}.firebaseapp.com` : undefined),
      projectId,
      appId: e.FIREBASE_APP_ID,
      authEmulatorUrl: authEmulatorHost ? `http://${authEmulatorHost}` : undefined,
    },
  };
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
