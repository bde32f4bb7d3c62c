import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinClock } from "~/time/clock.server";
import { action } from "~/routes/api.auth.session";
import { intoThisMinute } from "../support/clock";
import { backdateAccount, staleIdToken } from "../support/identity";
import { admin, APP_ORIGIN, appRequest, createAccount, freshIdToken } from "../support/app-env";

const firebase = admin();
afterAll(() => firebase.close());

function post(body: BodyInit, headers: Record<string, string> = {}) {
  return action({
    request: appRequest("/api/auth/session", {
      method: "POST",
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json", ...headers },
      body,
    }),
    params: {},
    context: {},
  });
}

describe("POST /api/auth/session", () => {
  let account: Awaited<ReturnType<typeof createAccount>>;
  beforeAll(async () => {
    account = await createAccount(firebase);
  });

  it("exchanges a fresh ID token for an HttpOnly session cookie (204 for JSON)", async () => {
    const idToken = await freshIdToken(account);
    const response = await post(JSON.stringify({ idToken }));
    expect(response.status).toBe(204);
    const cookie = response.headers.get("Set-Cookie")!;
    expect(cookie).toMatch(/^__session=[\w-]+\.[\w-]+\.[\w-]*;/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${5 * 24 * 60 * 60}`);
    // Local mode (emulators) serves plain http: no Secure attribute there.
    expect(cookie).not.toContain("Secure");
    // The cookie is a session cookie issued by Firebase, never the ID token itself.
    expect(cookie.split(";")[0].slice("__session=".length)).not.toBe(idToken);
  });

  it("answers a form post with 303 to the safe redirectTo", async () => {
    const idToken = await freshIdToken(account);
    const ok = await post(new URLSearchParams({ idToken, redirectTo: "/dashboard?tab=usage" }), {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/dashboard?tab=usage");
    expect(ok.headers.get("Set-Cookie")).toMatch(/^__session=/);

    const hostile = await post(
      new URLSearchParams({ idToken: await freshIdToken(account), redirectTo: "//evil.example/x" }),
      {
        "Content-Type": "application/x-www-form-urlencoded",
      },
    );
    expect(hostile.headers.get("Location")).toBe("/");
  });

  it("refuses cross-origin and origin-less requests with 403", async () => {
    const idToken = await freshIdToken(account);
    const cross = await post(JSON.stringify({ idToken }), { Origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(cross.headers.get("Set-Cookie")).toBeNull();
    expect(await cross.json()).toEqual({ error: expect.stringMatching(/cross-origin/i) });

    const noOrigin = await action({
      request: appRequest("/api/auth/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ idToken }),
      }),
      params: {},
      context: {},
    });
    expect(noOrigin.status).toBe(403);
  });

  it("refuses an ID token whose login is over 5 minutes old with 401", async () => {
    const old = await createAccount(firebase);
    await backdateAccount(process.env.TEST_AUTH_EMULATOR_DIRECT!, process.env.FIREBASE_PROJECT_ID!, old.uid, 3600);
    const stale = staleIdToken(await freshIdToken(old), 6 * 60);
    const response = await post(JSON.stringify({ idToken: stale }));
    expect(response.status).toBe(401);
    expect((await response.json()).error).toMatch(/too old/i);
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });

  it("refuses garbage, a missing token and malformed JSON with a clear JSON error", async () => {
    const garbage = await post(JSON.stringify({ idToken: "not-a-token" }));
    expect(garbage.status).toBe(401);
    expect((await garbage.json()).error).toMatch(/invalid or expired/i);

    const missing = await post(JSON.stringify({}));
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe("idToken is required.");

    const malformed = await post("{not json");
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatch(/not valid JSON/);

    const huge = await post(JSON.stringify({ idToken: "x".repeat(20_000) }));
    expect(huge.status).toBe(413);
  });

  it("refuses a disabled account's token", async () => {
    const disabled = await createAccount(firebase);
    const idToken = await freshIdToken(disabled);
    await firebase.auth.updateUser(disabled.uid, { disabled: true });
    const response = await post(JSON.stringify({ idToken }));
    expect(response.status).toBe(401);
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });

  it("rate-limits sign-ins per account at 30 a minute, with Retry-After", async () => {
    const busy = await createAccount(firebase);
    const idToken = await freshIdToken(busy);
    // Fixed minutes of the app's clock: held still 15 s into one, the whole run is in that minute.
    pinClock(intoThisMinute(15));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await post(JSON.stringify({ idToken }))).status);
      expect(statuses).toEqual([...Array(30).fill(204), 429]);
      const refused = await post(JSON.stringify({ idToken }));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("45");
      expect((await refused.json()).error).toBe("Too many login attempts. Please wait 45 seconds and try again.");
    } finally {
      pinClock(undefined);
    }
    // Another account is not affected.
    const other = await createAccount(firebase);
    expect((await post(JSON.stringify({ idToken: await freshIdToken(other) }))).status).toBe(204);
  });
});
