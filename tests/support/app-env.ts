import { authCache } from "~/auth/auth-cache.server";
import { resetConfig } from "~/config.server";
import { createAccount, idTokenFor, testAdmin, type TestAccount } from "./identity";

/**
 * For integration tests that call the app's loaders and actions in-process
 * against the emulators started by global-setup.ts.
 */
export const APP_ORIGIN = "http://app.test";

export function admin() {
  return testAdmin({
    projectId: process.env.FIREBASE_PROJECT_ID!,
    authHost: process.env.FIREBASE_AUTH_EMULATOR_HOST!,
    firestoreHost: process.env.FIRESTORE_EMULATOR_HOST!,
  });
}

export function appRequest(pathname: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("Host", new URL(APP_ORIGIN).host);
  if (init.cookie) headers.set("Cookie", init.cookie);
  return new Request(new URL(pathname, APP_ORIGIN), { ...init, headers });
}

export async function freshIdToken(account: TestAccount) {
  return idTokenFor(process.env.TEST_AUTH_EMULATOR_DIRECT!, account);
}

/** Mints a real session through the app's own session endpoint; returns the Cookie header value. */
export async function sessionCookieFor(account: TestAccount): Promise<string> {
  const { action } = await import("~/routes/api.auth.session");
  const response = await action({
    request: appRequest("/api/auth/session", {
      method: "POST",
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify({ idToken: await freshIdToken(account) }),
    }),
    params: {},
    context: {},
  });
  const setCookie = response.headers.get("Set-Cookie");
  if (response.status !== 204 || !setCookie) throw new Error(`Session not created: ${response.status}`);
  return setCookie.split(";")[0];
}

export { createAccount };

/**
 * Sets variables for the app under test (read again on the next getConfig,
 * with empty auth caches); returns the function that puts the previous values back.
 */
export function setAppEnv(vars: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
    authCache.reset();
  };
  apply(vars);
  return () => apply(saved);
}
