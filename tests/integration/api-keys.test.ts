import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, findApiKey, MAX_KEYS_PER_ACCOUNT, type ApiKeyView } from "~/data/api-keys.server";
import { getDb } from "~/db/client.server";
import { apiKeys } from "~/db/schema";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { appHandler } from "../support/remix-app";

/**
 * The dashboard's API keys section (docs/features.md, "API keys"): the
 * "create-api-key" and "revoke-api-key" intents and the list, through the
 * whole app in-process, as the page's forms post them.
 */

const firebase = admin();
afterAll(() => firebase.close());

const DATA = `?_data=${encodeURIComponent("routes/dashboard")}`;
const DAY_MS = 86_400_000;

let handle: (request: Request) => Promise<Response>;

beforeAll(async () => {
  handle = await appHandler();
});

async function signedIn(): Promise<{ account: TestAccount; cookie: string }> {
  const account = await createAccount(firebase, { prefix: "keys" });
  return { account, cookie: await sessionCookieFor(account) };
}

function post(
  cookie: string,
  fields: Record<string, string>,
  { origin = APP_ORIGIN as string | null, data = true } = {},
) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (origin) headers.Origin = origin;
  if (!data) headers.Accept = "text/html";
  return handle(
    appRequest(`/dashboard${data ? DATA : ""}`, {
      method: "POST",
      cookie,
      headers,
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

interface Answer {
  apiKey: {
    intent: string;
    created?: { key: ApiKeyView; secret: string };
    revoked?: string;
    error?: string;
    fieldErrors?: { name?: string; expiry?: string };
    values?: { name: string; expiry: string };
  };
}

async function create(cookie: string, name: string, expiry = "90d") {
  const response = await post(cookie, { intent: "create-api-key", name, expiry });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function revoke(cookie: string, id: string) {
  const response = await post(cookie, { intent: "revoke-api-key", id });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function section(cookie: string) {
  const response = await handle(appRequest(`/dashboard${DATA}`, { cookie }));
  expect(response.status).toBe(200);
  const text = await response.text();
  const { apiKeys } = JSON.parse(text) as { apiKeys: { keys: ApiKeyView[]; baseUrl: string; maxNameChars: number } };
  return { ...apiKeys, text };
}

async function rowsOf(uid: string) {
  return (await getDb()).select().from(apiKeys).where(eq(apiKeys.uid, uid));
}

describe("creating a key", () => {
  it("answers the secret once; only its hash is stored, and the list never carries it", async () => {
    const { account, cookie } = await signedIn();
    const before = Date.now();
    const { status, body } = await create(cookie, "  Laptop \n  scripts ");
    expect(status).toBe(201);
    const { key, secret } = body.apiKey.created!;
    expect(secret).toMatch(/^nvk_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: "Laptop scripts", prefix: secret.slice(0, 12), lastUsedAt: null, requests: 0 });
    const expires = new Date(key.expiresAt!).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);

    const [row] = await rowsOf(account.uid);
    expect(row.secretHash).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(secret);
    // The secret it answered is the key that works.
    expect(await findApiKey(await getDb(), secret)).toEqual({ keyId: key.id, uid: account.uid });

    const listed = await section(cookie);
    expect(listed.keys.map((each) => each.id)).toEqual([key.id]);
    expect(listed.text).not.toContain(secret);
    expect(listed.baseUrl).toBe(`${APP_ORIGIN}/v1`);
  });

  it("without JavaScript, the page after the post shows the secret; the next load of the page does not", async () => {
    const { cookie } = await signedIn();
    const response = await post(
      cookie,
      { intent: "create-api-key", name: "No script", expiry: "30d" },
      { data: false },
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    const html = await response.text();
    const secret = html.match(/nvk_[A-Za-z0-9_-]{43}/)?.[0];
    expect(secret).toBeDefined();
    expect(html).toContain("it is shown only this once");

    const again = await (await handle(appRequest("/dashboard", { cookie }))).text();
    expect(again).toContain("No script");
    expect(again).toContain(secret!.slice(0, 12));
    expect(again).not.toContain(secret);
  });

  it("sets each expiry: never, 30 days, 90 days, 1 year", async () => {
    const { cookie } = await signedIn();
    const days = { never: null, "30d": 30, "90d": 90, "1y": 365 };
    for (const [expiry, length] of Object.entries(days)) {
      const { status, body } = await create(cookie, `Expires ${expiry}`, expiry);
      expect(status, expiry).toBe(201);
      const { createdAt, expiresAt } = body.apiKey.created!.key;
      const lasts = expiresAt === null ? null : Math.round((Date.parse(expiresAt) - Date.parse(createdAt)) / DAY_MS);
      expect(lasts, expiry).toBe(length);
    }
  });

  it("refuses an empty or too long name and an unknown expiry with 400 and field errors; nothing is created", async () => {
    const { account, cookie } = await signedIn();
    const { maxNameChars } = await section(cookie);
    const cases = [
      { name: "   ", expiry: "90d", field: "name", message: /Give the key a name/ },
      { name: "x".repeat(maxNameChars + 1), expiry: "90d", field: "name", message: /100 characters or fewer/ },
      { name: "a\u0000b", expiry: "90d", field: "name", message: /cannot be stored/ },
      { name: "Fine", expiry: "forever", field: "expiry", message: /Choose when the key expires/ },
      { name: "Fine", expiry: "", field: "expiry", message: /Choose when the key expires/ },
    ] as const;
    for (const { name, expiry, field, message } of cases) {
      const { status, body } = await create(cookie, name, expiry);
      expect(status, `${field} ${expiry}`).toBe(400);
      expect(body.apiKey.fieldErrors?.[field], `${field} ${expiry}`).toMatch(message);
      // What was typed comes back, for the form to show again.
      expect(body.apiKey.values).toEqual({ name, expiry });
    }
    // A name of exactly the longest length is fine.
    expect((await create(cookie, "y".repeat(maxNameChars))).status).toBe(201);
    expect(await rowsOf(account.uid)).toHaveLength(1);
  });

  it(`at ${MAX_KEYS_PER_ACCOUNT} keys, answers 409 saying to revoke one; revoking one makes room`, async () => {
    const { account, cookie } = await signedIn();
    const db = await getDb();
    for (let made = 0; made < MAX_KEYS_PER_ACCOUNT; made += 1) {
      await createApiKey(db, { uid: account.uid, name: `Key ${made}`, expiresAt: null });
    }
    const { status, body } = await create(cookie, "One too many");
    expect(status).toBe(409);
    expect(body.apiKey.error).toBe(
      `You already have ${MAX_KEYS_PER_ACCOUNT} API keys, the most an account may hold. Revoke one you no longer use to create another.`,
    );
    expect(await rowsOf(account.uid)).toHaveLength(MAX_KEYS_PER_ACCOUNT);

    const [oldest] = (await section(cookie)).keys.slice(-1);
    expect((await revoke(cookie, oldest.id)).status).toBe(200);
    expect((await create(cookie, "Now there is room")).status).toBe(201);
  });
});

describe("listing and revoking keys", () => {
  it("lists only the account's own keys, newest first, with what each spent", async () => {
    const { cookie } = await signedIn();
    const other = await signedIn();
    const first = (await create(cookie, "First")).body.apiKey.created!.key;
    // PGlite's clock can give two quick inserts the same timestamp; a tie's order is not the order made.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await create(cookie, "Second")).body.apiKey.created!.key;
    await create(other.cookie, "Someone else's");

    const { keys } = await section(cookie);
    expect(keys.map((key) => key.name)).toEqual(["Second", "First"]);
    expect(keys[0]).toEqual(second);
    expect(keys[1]).toMatchObject({ id: first.id, requests: 0, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 });
  });

  it("revokes the account's key at once: gone from the list, and the secret no longer works", async () => {
    const { account, cookie } = await signedIn();
    const { key, secret } = (await create(cookie, "Short-lived")).body.apiKey.created!;
    const kept = (await create(cookie, "Kept")).body.apiKey.created!.key;

    const { status, body } = await revoke(cookie, key.id);
    expect(status).toBe(200);
    expect(body.apiKey).toEqual({ intent: "revoke", revoked: key.id });
    expect((await section(cookie)).keys.map((each) => each.id)).toEqual([kept.id]);
    expect(await findApiKey(await getDb(), secret)).toBeUndefined();
    expect(await rowsOf(account.uid)).toHaveLength(1);

    // Twice: already gone.
    expect((await revoke(cookie, key.id)).status).toBe(404);
  });

  it("another account's key id, an unknown one or a malformed one is not found, and nothing is deleted", async () => {
    const owner = await signedIn();
    const { key, secret } = (await create(owner.cookie, "Not yours")).body.apiKey.created!;
    const intruder = await signedIn();
    for (const id of [key.id, randomUUID(), "not-a-uuid", ""]) {
      const { status, body } = await revoke(intruder.cookie, id);
      expect(status, id).toBe(404);
      expect(body.apiKey.error, id).toBe("This key doesn't exist or was already revoked.");
    }
    expect((await section(owner.cookie)).keys.map((each) => each.id)).toEqual([key.id]);
    expect(await findApiKey(await getDb(), secret)).toMatchObject({ keyId: key.id });
  });
});

describe("another site's forms", () => {
  it("cannot create or revoke a key (403, document and ?_data alike, with or without an Origin); nothing changes", async () => {
    const { account, cookie } = await signedIn();
    const key = (await create(cookie, "Target")).body.apiKey.created!.key;
    for (const origin of ["http://evil.example", null]) {
      for (const data of [true, false]) {
        const label = `${origin ?? "no Origin"}, ${data ? "?_data" : "document"}`;
        const made = await post(
          cookie,
          { intent: "create-api-key", name: "Planted", expiry: "never" },
          { origin, data },
        );
        expect(made.status, label).toBe(403);
        expect(await made.text(), label).not.toMatch(/nvk_/);
        const revoked = await post(cookie, { intent: "revoke-api-key", id: key.id }, { origin, data });
        expect(revoked.status, label).toBe(403);
      }
    }
    expect((await rowsOf(account.uid)).map((row) => row.name)).toEqual(["Target"]);
  });
});
