import { randomUUID } from "node:crypto";
import { matchRoutes } from "@remix-run/react";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConversation } from "~/data/conversations.server";
import { addContactMessage } from "~/data/inbox.server";
import { saveExchange } from "~/data/messages.server";
import { createShare } from "~/data/shares.server";
import { getDb } from "~/db/client.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { chatBodyBytes, DEFAULT_MESSAGE_MAX_CHARS } from "~/settings/chat-limits";
import { DEMO_MODEL_ID } from "~/llm/demo-model.server";
import { STRIPE_EVENT_MAX_BYTES } from "~/billing/webhook.server";
import {
  admin,
  APP_ORIGIN,
  appRequest,
  createAccount,
  freshIdToken,
  sessionCookieFor,
  setAppEnv,
} from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { visitorWork } from "../support/contact-work";
import { appHandler, routeManifest } from "../support/remix-app";

/**
 * Hostile and malformed input against every route, through the whole app
 * in-process (tests/support/remix-app.ts): what a client receives, headers,
 * redirects and rendered HTML included. Each table reads as (route, input,
 * expectation); the rule behind all of them: a clear 4xx, a safe rendering or
 * a redirect to a same-origin path — never a 500, never markup that runs.
 */

const firebase = admin();
afterAll(() => firebase.close());

let handle: (request: Request) => Promise<Response>;
let userAccount: TestAccount;
let user: string;
let adminCookie: string;
let conversationId: string;
let replyId: string;
let toolId: string;
let messageId: string;
let shareId: string;

beforeAll(async () => {
  handle = await appHandler();
  userAccount = await createAccount(firebase, { displayName: "Bad Input" });
  user = await sessionCookieFor(userAccount);
  adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin", prefix: "admin" }));
  const db = await getDb();
  conversationId = (await createConversation(db, { uid: userAccount.uid, title: "Plain title" })).id;
  replyId = randomUUID();
  await saveExchange(db, {
    uid: userAccount.uid,
    conversationId,
    kind: "submit",
    user: { id: randomUUID(), text: "Question?", sentAt: new Date() },
    reply: {
      id: replyId,
      parts: [{ type: "text", text: "Answer." }],
      content: "Answer.",
      status: "completed",
      model: "demo",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Plain title",
  });
  shareId = (await createShare(db, { uid: userAccount.uid, conversationId, displayName: null }))!.id;
  messageId = (await addContactMessage(db, { email: "someone@example.com", uid: null, name: null, role: "" }, "Hello"))
    .id;
  const created = await send("POST", "/tools/new", {
    cookie: adminCookie,
    form: toolForm(`Tool ${randomUUID().slice(0, 8)}`),
  });
  toolId = new URL(created.headers.get("Location")!, APP_ORIGIN).searchParams.get("saved")!;
});

type Who = "anon" | "user" | "admin" | "fresh";

async function cookieOf(who: Who): Promise<string | undefined> {
  if (who === "anon") return undefined;
  if (who === "user") return user;
  if (who === "admin") return adminCookie;
  // A session of its own, for routes that end the session they are given.
  return sessionCookieFor(await createAccount(firebase));
}

interface SendOptions {
  cookie?: string;
  form?: Record<string, string>;
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
}

function send(method: string, path: string, { cookie, form, body, contentType, headers }: SendOptions = {}) {
  const all: Record<string, string> = { Origin: APP_ORIGIN, ...headers };
  let payload = body;
  if (form) {
    payload = new URLSearchParams(form).toString();
    all["Content-Type"] = "application/x-www-form-urlencoded";
  }
  if (contentType) all["Content-Type"] = contentType;
  // A stream body needs `duplex` (Node's fetch), which RequestInit does not type yet.
  const streamed = payload instanceof ReadableStream ? ({ duplex: "half" } as const) : {};
  return handle(appRequest(path, { method, cookie, headers: all, body: payload, ...streamed }));
}

/** A Location is safe when it stays on this origin (and a browser could not read it as another host). */
function expectSafeLocation(response: Response) {
  const location = response.headers.get("Location") ?? "";
  expect(location.startsWith("/") && !location.startsWith("//") && !location.includes("\\"), location).toBe(true);
  expect(new URL(location, APP_ORIGIN).origin).toBe(APP_ORIGIN);
}

function expectNoServerError(response: Response, label: string) {
  expect(response.status, label).toBeLessThan(500);
  if (response.status >= 300 && response.status < 400) expectSafeLocation(response);
}

function toolForm(name: string, overrides: Record<string, string> = {}) {
  return {
    name,
    category: "fun",
    description: "A tool for the bad-input tests.",
    systemPrompt: "Answer briefly.",
    field0Label: "Topic",
    field0Kind: "line",
    field0Required: "on",
    ...overrides,
  };
}

// ---- bodies ------------------------------------------------------------------

/** Every route that takes a POST, who posts, and the cap its body is read up to. */
const ACTIONS: Array<{ route: string; who: Who; cap: number; malformed: number[] }> = [
  { route: "/api/auth/session", who: "anon", cap: BODY_LIMITS.session, malformed: [400] },
  { route: "/api/auth/logout", who: "fresh", cap: BODY_LIMITS.small, malformed: [303] },
  { route: "/api/account/delete", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/api/account/export", who: "user", cap: BODY_LIMITS.small, malformed: [200] },
  { route: "/api/account/sign-out-everywhere", who: "fresh", cap: BODY_LIMITS.small, malformed: [303] },
  { route: "/api/contact", who: "anon", cap: BODY_LIMITS.message, malformed: [400] },
  { route: "/api/reports", who: "user", cap: BODY_LIMITS.message, malformed: [400] },
  { route: "/api/chat", who: "user", cap: chatBodyBytes(DEFAULT_MESSAGE_MAX_CHARS), malformed: [400] },
  { route: "/api/runs/stop", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/api/tool-approvals", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/api/tool-elicitations", who: "user", cap: BODY_LIMITS.document, malformed: [400] },
  // An upload is the file itself: text-like bodies are stored as text files, the rest refused (app/attachments/sniff.server.ts).
  { route: "/api/attachments", who: "user", cap: 20 * 1024 * 1024, malformed: [201, 400] },
  { route: "/dashboard", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/tools", who: "admin", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/tools/new", who: "admin", cap: BODY_LIMITS.document, malformed: [400] },
  { route: "/tools/:tool", who: "user", cap: BODY_LIMITS.document, malformed: [400] },
  { route: "/tools/:tool/edit", who: "admin", cap: BODY_LIMITS.document, malformed: [400] },
  { route: "/nuvara", who: "user", cap: BODY_LIMITS.message, malformed: [400] },
  { route: "/nuvara/:conversation", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/admin/messages", who: "admin", cap: BODY_LIMITS.message, malformed: [400] },
  { route: "/admin/messages/:message", who: "admin", cap: BODY_LIMITS.message, malformed: [400] },
  { route: "/admin/users", who: "admin", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/api/conversations/:conversation/share", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/api/shares/:share", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  { route: "/s/:share", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  // Without Stripe configured (as here) a plan can't be bought: 400 with why.
  { route: "/pricing", who: "user", cap: BODY_LIMITS.small, malformed: [400] },
  // Stripe's events: anything unsigned is a 400; the body is read (capped) first.
  { route: "/api/stripe/webhook", who: "anon", cap: STRIPE_EVENT_MAX_BYTES, malformed: [400] },
];

function resolve(route: string): string {
  return route
    .replace(":tool", toolId)
    .replace(":conversation", conversationId)
    .replace(":message", messageId)
    .replace(":share", shareId);
}

function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const size = Math.min(16 * 1024, bytes - sent);
      sent += size;
      controller.enqueue(new TextEncoder().encode("a".repeat(size)));
    },
  });
}

const form = (text: string) => ({ body: text, contentType: "application/x-www-form-urlencoded" });

/** Bodies over the route's cap: 413 however they arrive. */
const OVERSIZED: Array<{ input: string; make: (cap: number) => SendOptions }> = [
  { input: "form body one byte over the cap", make: (cap) => form(`intent=${"x".repeat(cap)}`) },
  {
    input: "JSON body over the cap",
    make: (cap) => ({ body: JSON.stringify({ message: "x".repeat(cap) }), contentType: "application/json" }),
  },
  {
    input: "chunked body, no Content-Length",
    make: (cap) => ({ body: chunked(cap + 1), contentType: "application/x-www-form-urlencoded" }),
  },
  {
    input: "Content-Length that lies (says 10)",
    make: (cap) => ({ ...form(`intent=${"x".repeat(cap)}`), headers: { "Content-Length": "10" } }),
  },
  {
    input: "Content-Length over the cap",
    make: (cap) => ({ ...form("intent=x"), headers: { "Content-Length": String(cap + 1) } }),
  },
];

/** Within the cap but not what the route reads: a 4xx (or, for routes that ignore their body, their usual answer). */
const MALFORMED: Array<{ input: string; options: SendOptions }> = [
  { input: "invalid JSON", options: { body: '{"intent": ', contentType: "application/json" } },
  { input: "JSON array", options: { body: "[1,2,3]", contentType: "application/json" } },
  { input: "JSON number", options: { body: "42", contentType: "application/json" } },
  { input: "JSON null", options: { body: "null", contentType: "application/json" } },
  {
    input: "deeply nested JSON",
    options: { body: `${"[".repeat(2_000)}${"]".repeat(2_000)}`, contentType: "application/json" },
  },
  { input: "plain text", options: { body: "intent=rename", contentType: "text/plain" } },
  { input: "no Content-Type", options: { body: "intent=rename" } },
  { input: "multipart without a boundary", options: { body: "garbage", contentType: "multipart/form-data" } },
  { input: "unknown form fields", options: form("unknown=1&intent=%00%ff") },
  {
    input: "huge fields (7.5 KB, within every cap)",
    options: form(`intent=${"x".repeat(7_000)}&title=${"y".repeat(500)}`),
  },
];

describe("request bodies: every action and API route", () => {
  for (const { route, who, cap } of ACTIONS) {
    for (const { input, make } of OVERSIZED) {
      it(`${route} · ${input} → 413 with a clear message`, async () => {
        const response = await send("POST", resolve(route), { cookie: await cookieOf(who), ...make(cap) });
        expect(response.status).toBe(413);
        const text = await response.text();
        expect(text).toMatch(/too large/i);
      });
    }
  }
  for (const { route, who, malformed } of ACTIONS) {
    for (const { input, options } of MALFORMED) {
      it(`${route} · ${input} → ${malformed.join(" or ")}, never a 500`, async () => {
        const response = await send("POST", resolve(route), { cookie: await cookieOf(who), ...options });
        expectNoServerError(response, `${route} ${input}`);
        expect(malformed).toContain(response.status);
      });
    }
  }
  it("a page action's 413 on a document post is the error page, saying what was wrong", async () => {
    const response = await send("POST", "/dashboard", {
      cookie: user,
      ...form(`intent=${"x".repeat(BODY_LIMITS.small)}`),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("Content-Type")).toContain("text/html");
    expect(await response.text()).toContain("That is too large to send: at most 8 KB here.");
  });
  it("a fetcher's 413 is JSON", async () => {
    const response = await send("POST", "/nuvara?_data=routes%2Fnuvara", {
      cookie: user,
      ...form(`instructions=${"x".repeat(BODY_LIMITS.message)}`),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: "That is too large to send: at most 64 KB here. Please shorten it and try again.",
    });
  });
});

// ---- cookies -----------------------------------------------------------------

/** Every page and GET API route, and what a visitor without a valid session gets there. */
const GET_ROUTES: Array<{ route: string; signedOut: number }> = [
  { route: "/", signedOut: 200 },
  { route: "/login", signedOut: 200 },
  { route: "/dashboard", signedOut: 302 },
  { route: "/dashboard/deleted", signedOut: 200 },
  { route: "/tools", signedOut: 200 },
  { route: "/tools/summarize", signedOut: 302 },
  { route: "/tools/new", signedOut: 302 },
  { route: "/tools/:tool/edit", signedOut: 302 },
  { route: "/tools/servers", signedOut: 302 },
  // Where a tool server's sign-in comes back (docs/decisions/092): only for the user who started it.
  { route: "/tools/servers/callback", signedOut: 302 },
  { route: "/nuvara", signedOut: 302 },
  { route: "/nuvara/:conversation", signedOut: 302 },
  { route: "/admin", signedOut: 302 },
  { route: "/admin/messages", signedOut: 302 },
  { route: "/admin/messages/:message", signedOut: 302 },
  { route: "/admin/messages/:message/conversation", signedOut: 302 },
  { route: "/admin/users", signedOut: 302 },
  { route: "/admin/feedback", signedOut: 302 },
  { route: "/admin/usage", signedOut: 302 },
  { route: "/admin/usage.csv", signedOut: 302 },
  { route: "/admin/api", signedOut: 302 },
  { route: "/admin/memory", signedOut: 302 },
  // The plans are public.
  { route: "/pricing", signedOut: 200 },
  { route: "/api/stripe/webhook", signedOut: 405 },
  { route: "/api/conversations/:conversation/markdown", signedOut: 302 },
  { route: "/api/conversations/:conversation/share", signedOut: 302 },
  { route: "/api/shares/:share", signedOut: 405 },
  // A share link is for anyone: a bad cookie only means signed out.
  { route: "/s/:share", signedOut: 200 },
  { route: "/api/auth/logout", signedOut: 303 },
  { route: "/api/auth/session", signedOut: 405 },
  { route: "/api/chat", signedOut: 405 },
  { route: "/api/runs/stop", signedOut: 405 },
  { route: "/api/tool-approvals", signedOut: 405 },
  { route: "/api/tool-elicitations", signedOut: 405 },
  { route: "/api/attachments", signedOut: 405 },
  // A file is its owner's: a bad cookie is a 401 (JSON), whatever the id.
  { route: "/api/attachments/00000000-0000-4000-8000-000000000000", signedOut: 401 },
  // A reply being written is its owner's: a bad cookie is a 401 (JSON), whatever the id.
  { route: "/api/runs/00000000-0000-4000-8000-000000000000", signedOut: 401 },
  // The conversation list's event stream is its owner's: a bad cookie is a 401 (JSON), and the browser stops asking.
  { route: "/api/conversations/events", signedOut: 401 },
  { route: "/api/contact", signedOut: 405 },
  // Telling of replies: posts only (docs/decisions/101).
  { route: "/api/notifications", signedOut: 405 },
  { route: "/api/presence", signedOut: 405 },
  // An import's progress is its owner's: a bad cookie is a 401 (JSON).
  { route: "/api/imports", signedOut: 401 },
  { route: "/dashboard/memory", signedOut: 302 },
  // The OpenAI-compatible API reads no cookie: without a key it is a 401 in OpenAI's shape, whatever the cookie.
  { route: "/v1/models", signedOut: 401 },
  { route: "/v1/chat/completions", signedOut: 405 },
  { route: "/v1/embeddings", signedOut: 405 },
  { route: "/no/such/page", signedOut: 404 },
  { route: "/api/nonexistent", signedOut: 404 },
  { route: "/livez", signedOut: 200 },
  { route: "/healthz", signedOut: 200 },
  // Without METRICS_TOKEN (as here) it is a 404 like any unknown path.
  { route: "/metrics", signedOut: 404 },
];

const utf8AsHeader = (text: string) => Buffer.from(text, "utf8").toString("latin1");

/** Cookies no valid session looks like; each must count as signed out. */
const BAD_COOKIES: Array<{ input: string; cookie: () => string }> = [
  { input: "garbage", cookie: () => "__session=%%%not-a-cookie;;;" },
  { input: "huge (12 KB)", cookie: () => `__session=${"a".repeat(12 * 1024)}` },
  { input: "truncated JWT", cookie: () => user.slice(0, Math.floor(user.length / 2)) },
  { input: "JWT without signature or payload", cookie: () => `__session=${user.split("=")[1].split(".")[0]}` },
  { input: "JWT with alg none and a forged uid", cookie: () => `__session=${forged()}` },
  { input: "non-ASCII bytes", cookie: () => `__session=${utf8AsHeader("ñø🍪‮")}` },
  { input: "Latin-1 characters", cookie: () => "__session=\u00e9\u00ff\u00a0" },
  { input: "quoted and repeated", cookie: () => `__session="x"; __session=y; __session=` },
];

function forged(): string {
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  const payload = Buffer.from(
    JSON.stringify({ sub: "someone-else", uid: "someone-else", exp: 9_999_999_999 }),
  ).toString("base64url");
  return `${header}.${payload}.`;
}

describe("malformed session cookies: every page and GET API route", () => {
  for (const { route, signedOut } of GET_ROUTES) {
    for (const { input, cookie } of BAD_COOKIES) {
      it(`GET ${route} · cookie ${input} → ${signedOut} as logged out`, async () => {
        const response = await send("GET", resolve(route), { cookie: cookie() });
        expectNoServerError(response, `${route} ${input}`);
        expect(response.status).toBe(signedOut);
        if (signedOut === 302) expect(response.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2F/);
      });
    }
  }
  it("a malformed cookie is cleared", async () => {
    const response = await send("GET", "/", { cookie: "__session=garbage" });
    expect(response.headers.get("Set-Cookie")).toMatch(/^__session=;.*Max-Age=0/i);
  });
});

// ---- redirectTo --------------------------------------------------------------

/** Values that must never send anyone off this site; each falls back to a same-origin path. */
const HOSTILE_REDIRECTS = [
  "//evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "https://evil.example/",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "%2F%2Fevil.example",
  "/%2F%2Fevil.example",
  "/%252F%252Fevil.example",
  "/%5Cevil.example",
  "%2F%5Cevil.example",
  " //evil.example",
  "／／evil.example",
  "/\u2215\u2215evil.example",
  "/\u202eelpmaxe.live",
  "/раth-in-cyrillic",
  "/emoji-😀",
  "/" + "a".repeat(5_000),
];

describe("hostile redirectTo values", () => {
  for (const value of HOSTILE_REDIRECTS) {
    const label = JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value);
    it(`GET /login?redirectTo=${label} (logged in) → a same-origin redirect`, async () => {
      const response = await send("GET", `/login?redirectTo=${encodeURIComponent(value)}`, { cookie: user });
      expect(response.status).toBe(302);
      expectSafeLocation(response);
    });
    it(`GET /login?redirectTo=${label} (logged out) → the page, with a same-origin redirectTo`, async () => {
      const response = await send("GET", `/login?_data=routes%2Flogin&redirectTo=${encodeURIComponent(value)}`);
      expect(response.status).toBe(200);
      const { redirectTo } = await response.json();
      expectSafeLocation(new Response(null, { headers: { Location: redirectTo } }));
    });
    it(`POST /api/auth/logout redirectTo=${label} → 303 to a same-origin path`, async () => {
      const response = await send("POST", "/api/auth/logout", { form: { redirectTo: value } });
      expect(response.status).toBe(303);
      expectSafeLocation(response);
    });
    it(`GET /api/auth/logout?redirectTo=${label} (typed) → 303 to a same-origin path`, async () => {
      const response = await send("GET", `/api/auth/logout?redirectTo=${encodeURIComponent(value)}`, {
        headers: { "Sec-Fetch-Site": "none" },
      });
      expect(response.status).toBe(303);
      expectSafeLocation(response);
    });
    it(`POST /api/auth/session redirectTo=${label} → 303 to a same-origin path`, async () => {
      const response = await send("POST", "/api/auth/session", {
        form: { idToken: await freshIdToken(userAccount), redirectTo: value },
      });
      expect(response.status).toBe(303);
      expectSafeLocation(response);
    });
  }
});

// ---- ids in the path -----------------------------------------------------------

/** Ids that name nothing: path traversal, NUL, unicode tricks, huge, not a UUID. */
const HOSTILE_IDS = [
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fadmin",
  "..%5C..%5Cwindows",
  "%00",
  "abc%00def",
  "%E2%80%AEexe.txt",
  // A UUID with a Cyrillic "а" for the Latin "a".
  encodeURIComponent("3f2504e0-4f89-11d3-9а0с-0305e82c3301"),
  "x".repeat(10_000),
  "123",
  "00000000-0000-0000-0000-000000000000",
  randomUUID().toUpperCase(),
  "%C0%AE%C0%AE",
  "%",
  encodeURIComponent("<script>alert(1)</script>"),
  encodeURIComponent("'; drop table conversations; --"),
];

const ID_ROUTES: Array<{ route: (id: string) => string; who: Who; post?: Record<string, string> }> = [
  { route: (id) => `/nuvara/${id}`, who: "user", post: { intent: "rename", title: "x" } },
  { route: (id) => `/tools/${id}`, who: "user", post: { input0: "x" } },
  { route: (id) => `/tools/${id}/edit`, who: "admin", post: toolForm("Edited") },
  { route: (id) => `/admin/messages/${id}`, who: "admin", post: { intent: "archive" } },
  { route: (id) => `/admin/messages/${id}/conversation`, who: "admin" },
  { route: (id) => `/api/conversations/${id}/markdown`, who: "user" },
  { route: (id) => `/api/attachments/${id}`, who: "user" },
  { route: (id) => `/api/conversations/${id}/share`, who: "user", post: { intent: "create" } },
  { route: (id) => `/s/${id}`, who: "user", post: { intent: "continue" } },
  { route: (id) => `/s/${id}/files/00000000-0000-4000-8000-000000000000`, who: "user" },
  { route: (id) => resolve(`/s/:share/files/${id}`), who: "user" },
];

describe("hostile ids in the path", () => {
  for (const { route, who, post } of ID_ROUTES) {
    for (const id of HOSTILE_IDS) {
      const label = route(id.length > 40 ? `${id.slice(0, 12)}…(${id.length})` : id);
      it(`GET ${label} → 404`, async () => {
        const response = await send("GET", route(id), { cookie: await cookieOf(who) });
        expect(response.status).toBe(404);
      });
      if (post) {
        it(`POST ${label} → 404`, async () => {
          const response = await send("POST", route(id), { cookie: await cookieOf(who), form: post });
          expect(response.status).toBe(404);
        });
      }
    }
  }
  it("another user's conversation is a 404 too", async () => {
    const response = await send("GET", `/nuvara/${conversationId}`, { cookie: adminCookie });
    expect(response.status).toBe(404);
  });
});

// ---- script in text fields -------------------------------------------------------

const PAYLOAD = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"><a href="javascript:alert(1)">x</a>`;
const RAW = ["<script>window.__pwned", "<img src=x", 'href="javascript:'];

/** The HTML shows the text escaped: the markup arrives as text, never as elements. */
async function expectInert(path: string, cookie: string) {
  const response = await send("GET", path, { cookie });
  expect(response.status, path).toBe(200);
  const html = await response.text();
  for (const raw of RAW) expect(html, `${path} holds ${raw}`).not.toContain(raw);
  expect(html, `${path} shows the text`).toMatch(
    /&lt;script&gt;window.__pwned=1&lt;\/script&gt;|\\u003cscript\\u003ewindow.__pwned/,
  );
}

describe("script in every text field is stored as text and rendered inert", () => {
  it("conversation title → /nuvara, the conversation, the dashboard; the Markdown export's file name is safe", async () => {
    expect(
      (await send("POST", `/nuvara/${conversationId}`, { cookie: user, form: { intent: "rename", title: PAYLOAD } }))
        .status,
    ).toBe(200);
    for (const path of ["/nuvara", `/nuvara/${conversationId}`, "/dashboard"]) await expectInert(path, user);
    const markdown = await send("GET", `/api/conversations/${conversationId}/markdown`, { cookie: user });
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    expect(markdown.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(markdown.headers.get("Content-Disposition")).toMatch(/^attachment; filename="[^"\\<>]*"/);
  });

  it("custom instructions → /nuvara", async () => {
    expect(
      (await send("POST", "/nuvara", { cookie: user, form: { intent: "instructions", instructions: PAYLOAD } })).status,
    ).toBe(200);
    await expectInert("/nuvara", user);
  });

  it("display name → the dashboard and the signed-in-as line", async () => {
    const response = await send("POST", "/dashboard", {
      cookie: user,
      form: { intent: "display-name", displayName: PAYLOAD.slice(0, 40) },
    });
    expectNoServerError(response, "display name");
    const html = await (await send("GET", "/dashboard", { cookie: user })).text();
    for (const raw of RAW) expect(html).not.toContain(raw);
  });

  it("API key name → the dashboard's list of keys", async () => {
    const response = await send("POST", "/dashboard", {
      cookie: user,
      form: { intent: "create-api-key", name: PAYLOAD.slice(0, 100), expiry: "never" },
    });
    expect(response.status).toBe(201);
    await expectInert("/dashboard", user);
  });

  it("contact message and sender name → the admin inbox list and the message", async () => {
    const marker = randomUUID().slice(0, 8);
    const response = await send("POST", "/api/contact", {
      form: {
        email: `x-${marker}@example.com`,
        name: "<b>n</b>",
        message: `${PAYLOAD} ${marker}`,
        ...(await visitorWork()),
      },
    });
    expect(response.status).toBe(201);
    const list = await send("GET", `/admin/messages?q=${marker}&_data=routes%2Fadmin.messages`, {
      cookie: adminCookie,
    });
    const id = (await list.json()).page.messages[0].id as string;
    for (const path of [`/admin/messages?q=${marker}`, `/admin/messages/${id}`]) await expectInert(path, adminCookie);
  });

  it("report comment → the admin message", async () => {
    const response = await send("POST", "/api/reports", {
      cookie: user,
      form: { messageId: replyId, reason: "other", comment: PAYLOAD },
    });
    expect(response.status).toBe(201);
    const { id } = await response.json();
    await expectInert(`/admin/messages/${id}`, adminCookie);
  });

  it("tool name, description, instructions and input labels → the catalogue, the tool and its edit form", async () => {
    const fields = { description: PAYLOAD, systemPrompt: PAYLOAD, field0Label: "<b>label</b>", category: "<i>c</i>" };
    const name = `<script>window.__pwned=1</script> ${randomUUID().slice(0, 6)}`;
    const created = await send("POST", "/tools/new", { cookie: adminCookie, form: toolForm(name, fields) });
    expect(created.status).toBe(303);
    const id = new URL(created.headers.get("Location")!, APP_ORIGIN).searchParams.get("saved")!;
    for (const path of ["/tools", `/tools/${id}`, `/tools/${id}/edit`]) await expectInert(path, adminCookie);
  });
});

// ---- unstorable text in every text field ----------------------------------------------

/**
 * Characters PostgreSQL cannot store (app/text/storable-text.ts): a NUL byte,
 * and a lone UTF-16 surrogate (which only a JSON body can carry: a form's
 * percent-encoded bytes decode to U+FFFD). Each must get a clear 4xx before
 * any work is done: never a 500, never a 503 "try again later" that cannot
 * succeed, never a query that fails on purpose.
 */
const UNSTORABLE: Array<{ input: string; text: string; inForm: boolean }> = [
  { input: "NUL byte", text: "a\u0000b", inForm: true },
  { input: "lone high surrogate", text: "a\ud800b", inForm: false },
  { input: "lone low surrogate", text: "a\udc00b", inForm: false },
];

type FieldCase = {
  field: string;
  method: "POST";
  route: string;
  who: Who;
  body: (text: string) => Record<string, unknown>;
  json: boolean;
};

const chatBody = (text: string) => ({
  conversationId: randomUUID(),
  create: true,
  message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
  model: DEMO_MODEL_ID,
});

const TEXT_FIELDS: FieldCase[] = [
  {
    field: "conversation title (rename)",
    method: "POST",
    route: "/nuvara/:conversation",
    who: "user",
    json: false,
    body: (title) => ({ intent: "rename", title }),
  },
  {
    field: "custom instructions",
    method: "POST",
    route: "/nuvara",
    who: "user",
    json: false,
    body: (instructions) => ({ intent: "instructions", instructions }),
  },
  {
    field: "project name",
    method: "POST",
    route: "/nuvara",
    who: "user",
    json: false,
    body: (name) => ({ intent: "project-create", name, instructions: "" }),
  },
  {
    field: "project instructions",
    method: "POST",
    route: "/nuvara",
    who: "user",
    json: false,
    body: (instructions) => ({ intent: "project-create", name: "Project", instructions }),
  },
  {
    field: "project of a chat (move)",
    method: "POST",
    route: "/nuvara/:conversation",
    who: "user",
    json: false,
    body: (project) => ({ intent: "project", project }),
  },
  {
    field: "display name",
    method: "POST",
    route: "/dashboard",
    who: "user",
    json: false,
    body: (displayName) => ({ intent: "display-name", displayName }),
  },
  {
    field: "API key name",
    method: "POST",
    route: "/dashboard",
    who: "user",
    json: false,
    body: (name) => ({ intent: "create-api-key", name, expiry: "never" }),
  },
  {
    field: "contact message (visitor)",
    method: "POST",
    route: "/api/contact",
    who: "anon",
    json: true,
    body: (message) => ({ email: "v@example.com", message }),
  },
  {
    field: "contact name (visitor)",
    method: "POST",
    route: "/api/contact",
    who: "anon",
    json: true,
    body: (name) => ({ email: "v@example.com", name, message: "hi" }),
  },
  {
    field: "contact email (visitor)",
    method: "POST",
    route: "/api/contact",
    who: "anon",
    json: true,
    body: (text) => ({ email: `v${text}@example.com`, message: "hi" }),
  },
  {
    field: "contact message (logged in)",
    method: "POST",
    route: "/api/contact",
    who: "user",
    json: true,
    body: (message) => ({ message }),
  },
  {
    field: "report comment",
    method: "POST",
    route: "/api/reports",
    who: "user",
    json: true,
    body: (comment) => ({ messageId: replyId, reason: "other", comment }),
  },
  { field: "chat message text", method: "POST", route: "/api/chat", who: "user", json: true, body: chatBody },
  {
    field: "chat project id",
    method: "POST",
    route: "/api/chat",
    who: "user",
    json: true,
    body: (projectId) => ({ ...chatBody("hi"), projectId }),
  },
  {
    field: "chat parent id",
    method: "POST",
    route: "/api/chat",
    who: "user",
    json: true,
    body: (parentId) => ({ ...chatBody("hi"), parentId }),
  },
  {
    field: "version shown (branch)",
    method: "POST",
    route: "/nuvara/:conversation",
    who: "user",
    json: false,
    body: (message) => ({ intent: "branch", message }),
  },
  ...(["name", "description", "category", "systemPrompt", "field0Label"] as const).flatMap((name): FieldCase[] => [
    {
      field: `new tool's ${name}`,
      method: "POST",
      route: "/tools/new",
      who: "admin",
      json: true,
      body: (text) => toolForm(`Tool ${randomUUID().slice(0, 6)}`, { [name]: `${name} ${text}` }),
    },
    {
      field: `edited tool's ${name}`,
      method: "POST",
      route: "/tools/:tool/edit",
      who: "admin",
      json: true,
      body: (text) => toolForm(`Tool ${randomUUID().slice(0, 6)}`, { [name]: `${name} ${text}` }),
    },
  ]),
  {
    field: "tool input",
    method: "POST",
    route: "/tools/:tool",
    who: "user",
    json: true,
    body: (input0) => ({ input0 }),
  },
  {
    field: "admin role change: custom role",
    method: "POST",
    route: "/admin/users",
    who: "admin",
    json: true,
    body: (customRole) => ({ email: "x@example.com", role: "custom", customRole }),
  },
  {
    field: "share display name",
    method: "POST",
    route: "/api/conversations/:conversation/share",
    who: "user",
    json: false,
    body: (displayName) => ({ intent: "create", displayName }),
  },
  {
    field: "account deletion confirmation",
    method: "POST",
    route: "/api/account/delete",
    who: "user",
    json: true,
    body: (confirm) => ({ confirm }),
  },
];

/** Searches read from the address: a clear 400, or (where odd filters are ignored) the page without the filter. */
const SEARCHES: Array<{ field: string; route: string; who: Who }> = [
  { field: "conversation search", route: "/nuvara?_data=routes%2Fnuvara&q=", who: "user" },
  { field: "admin inbox search", route: "/admin/messages?_data=routes%2Fadmin.messages&q=", who: "admin" },
  { field: "admin users search", route: "/admin/users?_data=routes%2Fadmin.users&q=", who: "admin" },
  { field: "tool catalogue search", route: "/tools?_data=routes%2Ftools&q=", who: "anon" },
];

describe("unstorable text in every text field → a clear 4xx, never a 500 or 503", () => {
  for (const { field, method, route, who, body, json } of TEXT_FIELDS) {
    for (const { input, text, inForm } of UNSTORABLE) {
      if (!json && !inForm) continue;
      it(`${route} · ${field} · ${input} → 4xx`, async () => {
        const fields = body(text);
        const options: SendOptions = json
          ? { body: JSON.stringify(fields), contentType: "application/json" }
          : { form: fields as Record<string, string> };
        // Fetcher requests (`_data`) answer with the action's own status, as the browser's fetch sees it.
        const path = route.startsWith("/api/")
          ? resolve(route)
          : `${resolve(route)}?_data=${encodeURIComponent(dataRouteId(route))}`;
        const response = await send(method, path, { cookie: await cookieOf(who), ...options });
        expect(response.status, `${field} ${input}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${field} ${input}`).toBeLessThan(500);
      });
    }
  }
  // A URL cannot carry a lone surrogate (encodeURIComponent throws on one); a client can
  // still send the bytes a careless encoder makes of it, which decode to U+FFFD.
  const IN_URL = [
    { input: "NUL byte", query: encodeURIComponent("a\u0000b") },
    { input: "a lone surrogate's bytes", query: "a%ED%A0%80b" },
  ];
  for (const { field, route, who } of SEARCHES) {
    for (const { input, query } of IN_URL) {
      it(`GET ${route.split("?")[0]} · ${field} · ${input} → 200 or 400`, async () => {
        const response = await send("GET", `${route}${query}`, { cookie: await cookieOf(who) });
        expect([200, 400], `${field} ${input}`).toContain(response.status);
      });
    }
  }
});

/** The route id Remix's `_data` parameter names, for a flat route path. */
function dataRouteId(route: string): string {
  const ids: Record<string, string> = {
    "/nuvara": "routes/nuvara",
    "/nuvara/:conversation": "routes/nuvara.$conversationId",
    "/dashboard": "routes/dashboard",
    "/tools/new": "routes/tools_.new",
    "/tools/:tool": "routes/tools_.$toolId",
    "/tools/:tool/edit": "routes/tools_.$toolId_.edit",
    "/admin/users": "routes/admin.users",
  };
  return ids[route];
}

// ---- two session cookies ----------------------------------------------------------------

describe("two session cookies in one request (cookie tossing) → logged out, never a 500", () => {
  const TWO_COOKIES: Array<{ input: string; cookie: () => Promise<string> }> = [
    { input: "__session=a; __session=b", cookie: async () => "__session=a; __session=b" },
    { input: "a valid session, then another", cookie: async () => `${user}; ${await cookieOf("fresh")}` },
    { input: "garbage, then a valid session", cookie: async () => `__session=garbage; ${user}` },
  ];
  for (const { input, cookie } of TWO_COOKIES) {
    it(`GET /dashboard · ${input} → 302 to /login`, async () => {
      const response = await send("GET", "/dashboard", { cookie: await cookie() });
      expectNoServerError(response, input);
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fdashboard/);
    });
    it(`GET / · ${input} → the page, logged out`, async () => {
      const response = await send("GET", "/?_data=root", { cookie: await cookie() });
      expect(response.status).toBe(200);
      expect((await response.json()).user ?? null).toBeNull();
    });
  }
});

// ---- unknown /api paths and methods (docs/security.md, "API responses") ---------

describe("unknown /api paths and unknown methods → a clear 4xx, never an HTML page or a 500", () => {
  // TRACE cannot be sent in-process (the Fetch API refuses to build such a
  // request); tests/integration/http-edges.test.ts sends it to remix-serve.
  const paths: Array<{ method: string; route: string; who: Who; options?: SendOptions }> = [
    { method: "GET", route: "/api/nonexistent", who: "anon" },
    { method: "GET", route: "/api", who: "anon" },
    { method: "GET", route: "/api/chat/extra/segments", who: "user" },
    { method: "GET", route: "/api/conversations/:conversation", who: "user" },
    { method: "POST", route: "/api/nonexistent", who: "user", options: { form: { x: "1" } } },
    { method: "DELETE", route: "/api/nonexistent", who: "anon" },
  ];
  for (const { method, route, who, options } of paths) {
    it(`${method} ${route} (${who}) → JSON 404 with the API headers`, async () => {
      const response = await send(method, resolve(route), { cookie: await cookieOf(who), ...options });
      expect(response.status).toBe(404);
      expect(response.headers.get("Content-Type")).toContain("application/json");
      expect(await response.json()).toEqual({ error: "Not found." });
      expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(response.headers.get("Cache-Control")).toBe("no-store");
    });
  }

  it("the catch-all shadows no real /api route", async () => {
    const chat = await send("GET", "/api/chat", { cookie: user });
    expect(chat.status).toBe(405);
    expect(await chat.json()).toEqual({ error: "Use POST." });
    const markdown = await send("GET", resolve("/api/conversations/:conversation/markdown"), { cookie: user });
    expect(markdown.status).toBe(200);
  });

  // Methods no route takes are Remix's 405; PUT/PATCH/DELETE reach the
  // action (behind the origin check), which refuses what it does not know.
  for (const [method, route, status] of [
    ["PROPFIND", "/", 405],
    ["OPTIONS", "/dashboard", 405],
    ["PATCH", "/nuvara", 400],
    ["PROPFIND", "/api/chat", 405],
    ["OPTIONS", "/api/nonexistent", 404],
  ] as const) {
    it(`${method} ${route} → ${status}, not a 500`, async () => {
      const response = await send(method, route, { cookie: user });
      expect(response.status).toBe(status);
    });
  }
});

// ---- chat message ids (ADR 044) ------------------------------------------------------

describe("POST /api/chat · a message id already stored elsewhere → 409 before the model, never a failed save", () => {
  const storedId = randomUUID();
  beforeAll(async () => {
    const db = await getDb();
    const other = await createAccount(firebase, { prefix: "ids" });
    const otherConversation = (await createConversation(db, { uid: other.uid, title: "Someone else's" })).id;
    await saveExchange(db, {
      uid: other.uid,
      conversationId: otherConversation,
      kind: "submit",
      user: { id: storedId, text: "Theirs", sentAt: new Date() },
      reply: {
        id: randomUUID(),
        parts: [{ type: "text", text: "Ok." }],
        content: "Ok.",
        status: "completed",
        model: "demo",
        inputTokens: 1,
        outputTokens: 1,
      },
      usageDay: new Date().toISOString().slice(0, 10),
      title: "Someone else's",
    });
  });
  const CASES: Array<{ input: string; body: () => Record<string, unknown> }> = [
    {
      input: "another user's message id, new conversation",
      body: () => ({
        ...chatBody("hello"),
        message: { id: storedId, role: "user", parts: [{ type: "text", text: "hello" }] },
      }),
    },
    {
      input: "a reply's id (of another of my conversations) as my message id",
      body: () => ({
        ...chatBody("hello"),
        message: { id: replyId, role: "user", parts: [{ type: "text", text: "hello" }] },
      }),
    },
  ];
  for (const { input, body } of CASES) {
    it(`${input} → 409 with a clear message`, async () => {
      const response = await send("POST", "/api/chat", {
        cookie: user,
        body: JSON.stringify(body()),
        contentType: "application/json",
      });
      expect(response.status, input).toBe(409);
      expect((await response.json()).error).toBe(
        "This message id is already used by another message. Send your message as a new one (with a new id).",
      );
    });
  }
});

// ---- Markdown replies and tossed cookies (ADR 050, app/auth/cookie.server.ts) --------

describe("hostile Markdown replies open their conversation; tossed session cookies are cleared", () => {
  /** ADR 050's payloads: a stack overflow (500 forever) and seconds of parsing per view. */
  const REPLIES = [
    { input: "1 200 nested `>` (1.2 KB)", text: `${">".repeat(1_200)} x`, shown: "&gt;".repeat(40) },
    {
      input: "30 000 `[`, a, 30 000 `]` (60 KB)",
      text: `${"[".repeat(30_000)}a${"]".repeat(30_000)}`,
      shown: `${"[".repeat(40)}a${"]".repeat(40)}`,
    },
    { input: "1 000 nested list markers", text: `${"- ".repeat(1_000)}x`, shown: "- - - - x" },
    { input: "20 000 `_a*`", text: "_a*".repeat(20_000), shown: "_a*_a*_a*" },
  ];
  for (const { input, text, shown } of REPLIES) {
    it(`GET /nuvara/<conversation> · reply ${input} → 200 within 1.5 s, the text shown`, async () => {
      const db = await getDb();
      const id = (await createConversation(db, { uid: userAccount.uid, title: "Markdown payload" })).id;
      await saveExchange(db, {
        uid: userAccount.uid,
        conversationId: id,
        kind: "submit",
        user: { id: randomUUID(), text: "Say it", sentAt: new Date() },
        reply: {
          id: randomUUID(),
          parts: [{ type: "text", text }],
          content: text,
          status: "completed",
          model: "demo",
          inputTokens: 1,
          outputTokens: 1,
        },
        usageDay: new Date().toISOString().slice(0, 10),
        title: "Markdown payload",
      });
      const started = performance.now();
      const response = await send("GET", `/nuvara/${id}`, { cookie: user });
      const html = await response.text();
      expect(response.status).toBe(200);
      expect(html).toContain(shown);
      expect(performance.now() - started).toBeLessThan(1_500);
    });
  }

  it("two session cookies → logged out, and the cookie a sibling can plant is cleared", async () => {
    // The valid one first: it used to win, keeping the victim signed in next to a planted cookie.
    const response = await send("GET", "/dashboard", { cookie: `${user}; __session=planted` });
    expect(response.status).toBe(302);
    expect(response.headers.get("Set-Cookie")).toMatch(/^__session=;.*Max-Age=0/);
  });

  it("both names, __session and __Host-session → logged out", async () => {
    const response = await send("GET", "/?_data=root", { cookie: `${user}; __Host-session=${user.split("=")[1]}` });
    expect(response.status).toBe(200);
    expect((await response.json()).user ?? null).toBeNull();
  });
});

// ---- /api headers ------------------------------------------------------------------

describe("every /api response carries the API headers", () => {
  const cases: Array<{ method: string; route: string; who: Who; options?: SendOptions; status: number }> = [
    { method: "GET", route: "/api/chat", who: "anon", status: 405 },
    {
      method: "POST",
      route: "/api/chat",
      who: "anon",
      options: { body: "{}", contentType: "application/json" },
      status: 401,
    },
    {
      method: "POST",
      route: "/api/contact",
      who: "anon",
      options: { body: "[]", contentType: "application/json" },
      status: 400,
    },
    {
      method: "POST",
      route: "/api/contact",
      who: "anon",
      options: { headers: { Origin: "https://evil.example" } },
      status: 403,
    },
    {
      method: "POST",
      route: "/api/reports",
      who: "anon",
      options: form(`x=${"x".repeat(BODY_LIMITS.message)}`),
      status: 413,
    },
    {
      method: "POST",
      route: "/api/auth/session",
      who: "anon",
      options: { body: "{}", contentType: "application/json" },
      status: 400,
    },
    { method: "GET", route: "/api/auth/logout", who: "anon", status: 303 },
    { method: "POST", route: "/api/account/export", who: "user", status: 200 },
    { method: "POST", route: "/api/account/export", who: "anon", status: 302 },
    { method: "GET", route: "/api/account/delete", who: "user", status: 405 },
    { method: "GET", route: "/api/account/sign-out-everywhere", who: "user", status: 405 },
    { method: "GET", route: "/api/conversations/:conversation/markdown", who: "user", status: 200 },
    { method: "PUT", route: "/api/conversations/:conversation/markdown", who: "user", status: 405 },
    { method: "GET", route: "/api/conversations/not-a-uuid/markdown", who: "user", status: 404 },
  ];
  for (const { method, route, who, options, status } of cases) {
    it(`${method} ${route} (${who}) → ${status}, with the API headers`, async () => {
      const response = await send(method, resolve(route), { cookie: await cookieOf(who), ...options });
      expect(response.status).toBe(status);
      expect(response.headers.get("Cache-Control")).toBe("no-store");
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(response.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("Permissions-Policy")).toContain("camera=()");
      expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
      expect(response.headers.get("X-Powered-By")).toBeNull();
      // Plain http here; HSTS is for https (below).
      expect(response.headers.get("Strict-Transport-Security")).toBeNull();
    });
  }
  it("over https, HSTS too", async () => {
    const response = await handle(new Request("https://app.test/api/chat", { headers: { Host: "app.test" } }));
    expect(response.headers.get("Strict-Transport-Security")).toContain("max-age=31536000");
  });
});

// ---- hostile query strings and wrong methods: every page and GET route -------------------

/** Queries no page expects: each must get a 2xx-4xx and a same-origin redirect at most, and put nothing in a header. */
const HOSTILE_QUERIES: Array<{ input: string; query: string }> = [
  { input: "malformed percent-encoding", query: "q=%&redirectTo=%E0%A4%A&%=%%" },
  { input: "_data naming no route", query: "_data=routes%2Fno-such-route" },
  { input: "_data naming another route", query: "_data=routes%2Fadmin.users" },
  { input: "empty _data", query: "_data=" },
  { input: "?index with root's data", query: "index&_data=root" },
  {
    input: "arrays and repeated keys",
    query: "redirectTo[]=x&redirectTo=%2F%2Fevil.example&mode=signup&mode=reset&mode[x]=1",
  },
  {
    input: "NUL and CR LF (header splitting)",
    query: "q=%00%0D%0ASet-Cookie:%20injected=1&redirectTo=%2F%0D%0ALocation:%20%2F%2Fevil.example",
  },
  { input: "8 KB query", query: `q=${"a".repeat(8 * 1024)}` },
];

describe("hostile query strings: every page and GET route", () => {
  for (const { route } of GET_ROUTES) {
    // Logging out a shared session would sign out the user every other test here uses.
    const visitors: Who[] = route === "/api/auth/logout" ? ["anon"] : ["anon", "user"];
    for (const who of visitors) {
      for (const { input, query } of HOSTILE_QUERIES) {
        it(`GET ${route}?… ${input} (${who}) → no 500, nothing injected`, async () => {
          const response = await send("GET", `${resolve(route)}?${query}`, { cookie: await cookieOf(who) });
          expectNoServerError(response, `${route} ${input}`);
          // (A signed-out redirect carries the query percent-encoded in redirectTo: that is data, not a header.)
          expect(response.headers.get("Set-Cookie") ?? "").not.toContain("injected");
        });
      }
    }
  }
});

/** Routes that only answer GET: other methods are refused without the body being read. */
const GET_ONLY: Array<{ route: string; status: number }> = [
  { route: "/", status: 405 },
  { route: "/login", status: 405 },
  { route: "/dashboard/deleted", status: 405 },
  { route: "/admin", status: 405 },
  { route: "/admin/messages/:message/conversation", status: 405 },
  { route: "/livez", status: 405 },
  { route: "/healthz", status: 405 },
  { route: "/metrics", status: 405 },
  // A shared file is read-only; POST has no action there.
  { route: "/s/:share/files/00000000-0000-4000-8000-000000000000", status: 405 },
  // The /api catch-all answers every method with its JSON 404.
  { route: "/api/nonexistent", status: 404 },
];

/** A body of `bytes` that records how much of it was read. */
function countedBody(bytes: number) {
  const counter = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled >= bytes) return controller.close();
      counter.pulled += 16 * 1024;
      controller.enqueue(new Uint8Array(16 * 1024));
    },
  });
  return { body, counter };
}

describe("wrong methods with oversized bodies: every GET-only route", () => {
  for (const { route, status } of GET_ONLY) {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      it(`${method} ${route} · a 32 MB chunked body (user) → ${status}, the body left unread`, async () => {
        const { body, counter } = countedBody(32 * 1024 * 1024);
        const response = await send(method, route, {
          cookie: user,
          body,
          contentType: "application/x-www-form-urlencoded",
        });
        expect(response.status).toBe(status);
        // A few chunks may be buffered ahead; reading it all would be 2 048.
        expect(counter.pulled).toBeLessThan(1024 * 1024);
      });
    }
  }
});

// ---- /metrics: hostile credentials ----------------------------------------------------

describe("GET /metrics with a token configured: anything but the exact bearer token → 404", () => {
  const token = "m".repeat(24) + randomUUID().replaceAll("-", "");
  let restore: () => void;
  beforeAll(() => {
    restore = setAppEnv({ METRICS_TOKEN: token });
  });
  afterAll(() => restore());

  const HOSTILE_AUTH: Array<{ input: string; header: () => string }> = [
    { input: "no scheme", header: () => token },
    { input: "Basic with the token", header: () => `Basic ${Buffer.from(`x:${token}`).toString("base64")}` },
    { input: "the token with one more character", header: () => `Bearer ${token}x` },
    { input: "the token's prefix", header: () => `Bearer ${token.slice(0, -1)}` },
    { input: "the token twice", header: () => `Bearer ${token} ${token}` },
    { input: "an empty bearer", header: () => "Bearer " },
    { input: "a 12 KB bearer", header: () => `Bearer ${"a".repeat(12 * 1024)}` },
    { input: "Latin-1 bytes", header: () => `Bearer ${utf8AsHeader("ñ🍪")}` },
  ];
  for (const { input, header } of HOSTILE_AUTH) {
    it(`Authorization: ${input} → 404, nothing about metrics`, async () => {
      const response = await send("GET", "/metrics", { headers: { Authorization: header() } });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toMatch(/# (HELP|TYPE)/);
    });
  }
  it("the exact token → 200 with the metrics (so the refusals above are not a broken route)", async () => {
    const response = await send("GET", "/metrics", { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/# TYPE /);
  });
});

// ---- every route file is attacked ----------------------------------------------------------

/**
 * The paths the tables above send (and the hostile-redirect tests' routes),
 * matched against app/routes as Remix matches them: a route file none of
 * them reaches has no hostile-input test, and fails here with its name.
 */
function attackedPaths(): string[] {
  return [
    ...ACTIONS.map(({ route }) => route),
    ...GET_ROUTES.map(({ route }) => route),
    ...GET_ONLY.map(({ route }) => route),
    ...ID_ROUTES.map(({ route }) => route("x")),
    ...SEARCHES.map(({ route }) => route),
    ...TEXT_FIELDS.map(({ route }) => route),
    "/login",
    "/api/auth/logout",
    "/api/auth/session",
  ].map((path) => resolve(path).split("?")[0]);
}

interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  children?: RouteNode[];
}

function routeTree(): RouteNode[] {
  const routes = Object.values(routeManifest()) as Array<RouteNode & { parentId?: string; file: string }>;
  const childrenOf = (parentId: string): RouteNode[] =>
    routes
      .filter((route) => route.parentId === parentId)
      .map(({ id, path, index }) => ({ id, path, index, children: index ? undefined : childrenOf(id) }));
  return [{ id: "root", path: "", children: childrenOf("root") }];
}

function reachedBy(tree: RouteNode[], paths: string[]): Set<string> {
  const reached = new Set<string>();
  for (const path of paths) {
    // Remix's own matcher: ranked routes, splats, pathless layouts and index routes as at run time.
    for (const match of matchRoutes(tree as Parameters<typeof matchRoutes>[0], path) ?? [])
      reached.add((match.route as RouteNode).id);
  }
  return reached;
}

describe("the tables above reach every route file", () => {
  it("a route file no table sends to would be missed (the check below can fail)", () => {
    const tree = routeTree();
    tree[0].children!.push({ id: "routes/new-route", path: "new-route" });
    const reached = reachedBy(tree, attackedPaths());
    expect(reached.has("routes/new-route")).toBe(false);
    expect(reachedBy(tree, ["/new-route"]).has("routes/new-route")).toBe(true);
  });

  it("each file under app/routes is matched by at least one attacked path", () => {
    const reached = reachedBy(routeTree(), attackedPaths());
    const files = Object.values(routeManifest()).filter((route) => route.id !== "root");
    expect(files.length).toBeGreaterThan(25);
    const missing = files.filter((route) => !reached.has(route.id)).map((route) => `app/${route.file}`);
    expect(missing, "route files with no row in the bad-input tables").toEqual([]);
  });
});
