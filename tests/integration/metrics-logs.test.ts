import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pinClock } from "~/time/clock.server";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { captureLogs } from "../support/log-capture";
import { appHandler } from "../support/remix-app";
import { firstMessage, readChunks, dataOf, waitUntil } from "./chat-support";

/**
 * GET /metrics and the request log (ADR 052), through the whole app as
 * remix-serve runs it: what an operator's Prometheus and log collector receive.
 */

const TOKEN = `metrics-${randomUUID()}`;
const firebase = admin();
let model: ModelServer;
let handle: (request: Request) => Promise<Response>;
let restoreEnv: () => void;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  restoreEnv = setAppEnv({
    METRICS_TOKEN: TOKEN,
    LLM_BASE_URL: model.url,
    LLM_MODELS: "test-model",
    QUOTA_DAILY_MESSAGES: "tiny=1",
  });
  handle = await appHandler();
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

async function scrape(): Promise<string> {
  const response = await handle(appRequest("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } }));
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one series in Prometheus text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? "").split(",");
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return 0;
}

function sendChat(body: unknown, cookie: string) {
  return handle(
    appRequest("/api/chat", {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

describe("GET /metrics", () => {
  it("is a 404 without the token, with a wrong one or another scheme; 200 Prometheus text with it", async () => {
    const refused: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer wrong-${TOKEN}` },
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: TOKEN },
    ];
    for (const headers of refused) {
      const response = await handle(appRequest("/metrics", { headers }));
      expect(response.status, JSON.stringify(headers)).toBe(404);
      expect(await response.text()).not.toMatch(/nuvara_|nodejs_/);
    }

    const response = await handle(appRequest("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } }));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    const text = await response.text();
    expect(text).toMatch(/^# HELP nuvara_http_requests_total /m);
    // Event-loop lag comes with the default metrics.
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it("is a 404 whatever is sent when METRICS_TOKEN is unset", async () => {
    const restore = setAppEnv({ METRICS_TOKEN: "" });
    try {
      for (const authorization of [`Bearer ${TOKEN}`, "Bearer ", ""]) {
        const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
        const response = await handle(appRequest("/metrics", { headers }));
        expect(response.status).toBe(404);
      }
    } finally {
      restore();
    }
  });

  it("counts a page's request under its route id and status, never its path", async () => {
    const loginLabels = { route: "routes/login", kind: "loader", status: "200" };
    const before = await scrape();
    expect((await handle(appRequest("/login"))).status).toBe(200);
    const conversationId = randomUUID();
    const conversation = await handle(appRequest(`/nuvara/${conversationId}`));
    const after = await scrape();

    expect(sample(after, "nuvara_http_requests_total", loginLabels)).toBe(
      sample(before, "nuvara_http_requests_total", loginLabels) + 1,
    );
    expect(sample(after, "nuvara_http_request_duration_seconds_count", loginLabels)).toBe(
      sample(before, "nuvara_http_request_duration_seconds_count", loginLabels) + 1,
    );
    const rootLabels = { route: "root", kind: "loader", status: "200" };
    expect(sample(after, "nuvara_http_requests_total", rootLabels)).toBeGreaterThanOrEqual(
      sample(before, "nuvara_http_requests_total", rootLabels) + 2,
    );
    // Signed out, the conversation page sends to /login: counted under its pattern with that status.
    const pageLabels = { route: "routes/nuvara.$conversationId", kind: "loader", status: String(conversation.status) };
    expect(sample(after, "nuvara_http_requests_total", pageLabels)).toBe(
      sample(before, "nuvara_http_requests_total", pageLabels) + 1,
    );
    expect(after).not.toContain(conversationId);
  });
});

describe("docs/grafana-dashboard.json", () => {
  it("queries only metrics that /metrics serves", async () => {
    const dashboard = JSON.parse(readFileSync("docs/grafana-dashboard.json", "utf8")) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const served = new Set([...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    const queried = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) => [...target.expr.matchAll(/\b((?:nuvara|nodejs|process)_\w+)/g)]),
    );
    expect(queried.length).toBeGreaterThan(10);
    for (const [name] of queried) expect(served, name).toContain(name.replace(/_(bucket|count|sum)$/, ""));
  });
});

describe("chat metrics", () => {
  it("a reply adds its tokens in and out, observes its first token and ends its running generation", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const labels = { model: "test-model" };
    const before = await scrape();
    const response = await sendChat(firstMessage("count my tokens"), cookie);
    expect(response.status).toBe(200);
    expect(dataOf(await readChunks(response), "saved")).toBeDefined();
    await waitUntil(
      "the generation ended",
      async () => sample(await scrape(), "nuvara_chat_generations_running") === 0,
    );
    const after = await scrape();

    expect(sample(after, "nuvara_chat_tokens_total", { ...labels, direction: "in" })).toBeGreaterThan(
      sample(before, "nuvara_chat_tokens_total", { ...labels, direction: "in" }),
    );
    expect(sample(after, "nuvara_chat_tokens_total", { ...labels, direction: "out" })).toBeGreaterThan(
      sample(before, "nuvara_chat_tokens_total", { ...labels, direction: "out" }),
    );
    expect(sample(after, "nuvara_chat_first_token_seconds_count", labels)).toBe(
      sample(before, "nuvara_chat_first_token_seconds_count", labels) + 1,
    );
    const actionLabels = { route: "routes/api.chat", kind: "action", status: "200" };
    expect(sample(after, "nuvara_http_requests_total", actionLabels)).toBe(
      sample(before, "nuvara_http_requests_total", actionLabels) + 1,
    );
    // The app's database is open by now: its pool is reported.
    expect(sample(after, "nuvara_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
  });

  it("session cache lookups are counted as hits and misses (the hit ratio)", async () => {
    const restore = setAppEnv({ AUTH_CACHE_TTL_SECONDS: "30" });
    try {
      const cookie = await sessionCookieFor(await createAccount(firebase));
      const hit = { cache: "identity", result: "hit" };
      const miss = { cache: "identity", result: "miss" };
      const before = await scrape();
      // A page may use the caches: the first load fills them, the second finds the account there.
      for (let i = 0; i < 2; i++) expect((await handle(appRequest("/dashboard", { cookie }))).status).toBe(200);
      const after = await scrape();
      expect(sample(after, "nuvara_auth_cache_lookups_total", miss)).toBeGreaterThan(
        sample(before, "nuvara_auth_cache_lookups_total", miss),
      );
      expect(sample(after, "nuvara_auth_cache_lookups_total", hit)).toBeGreaterThan(
        sample(before, "nuvara_auth_cache_lookups_total", hit),
      );
    } finally {
      restore();
    }
  });

  it("a refusal by the daily quota or a rate limit is counted under the limit's name", async () => {
    const quotaLimited = await createAccount(firebase, { role: "tiny" });
    const quotaCookie = await sessionCookieFor(quotaLimited);
    const before = await scrape();
    await readChunks(await sendChat(firstMessage("the one allowed"), quotaCookie));
    expect((await sendChat(firstMessage("one too many"), quotaCookie)).status).toBe(429);
    const afterQuota = await scrape();
    expect(sample(afterQuota, "nuvara_limit_refusals_total", { limit: "daily_quota" })).toBe(
      sample(before, "nuvara_limit_refusals_total", { limit: "daily_quota" }) + 1,
    );

    const hurried = await createAccount(firebase);
    const restore = setAppEnv({ CHAT_RATE_LIMIT_PER_MINUTE: "1" });
    // One a minute, in fixed minutes of the app's clock: held still, the second send falls in the first one's minute.
    pinClock(new Date());
    try {
      const cookie = await sessionCookieFor(hurried);
      await readChunks(await sendChat(firstMessage("first"), cookie));
      expect((await sendChat(firstMessage("second"), cookie)).status).toBe(429);
    } finally {
      pinClock(undefined);
      restore();
    }
    const afterRate = await scrape();
    expect(sample(afterRate, "nuvara_limit_refusals_total", { limit: "chat:uid" })).toBe(
      sample(afterQuota, "nuvara_limit_refusals_total", { limit: "chat:uid" }) + 1,
    );
    // Names only: no account, address or email ever becomes a label.
    const limitNames = [...afterRate.matchAll(/limit="([^"]*)"/g)].map((match) => match[1]);
    expect(limitNames.every((name) => /^[a-z_:-]{1,40}$/.test(name))).toBe(true);
    expect(afterRate).not.toContain(hurried.uid);
    expect(afterRate).not.toContain(hurried.email);
  });
});

describe("request ids and log lines", () => {
  it("every response carries X-Request-Id, the id of its log lines; a safe incoming id is kept, an unsafe one replaced", async () => {
    const logs = captureLogs();
    let page: Response, data: Response, api: Response, kept: Response, replaced: Response;
    try {
      page = await handle(appRequest("/login"));
      data = await handle(appRequest("/login?_data=routes%2Flogin"));
      api = await handle(appRequest("/livez"));
      kept = await handle(appRequest("/login", { headers: { "X-Request-Id": "lb-7f3a.91:2" } }));
      replaced = await handle(
        appRequest("/login", { headers: { "X-Request-Id": `a b"}{"level":60,${"x".repeat(80)}` } }),
      );
    } finally {
      logs.restore();
    }
    const ids = [page, data, api, kept, replaced].map((response) => response.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(/^[\w.:-]{1,64}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[3]).toBe("lb-7f3a.91:2");
    expect(ids[4]).toMatch(/^[0-9a-f-]{36}$/);

    const entries = logs.entries();
    // The page: its root and route loaders each wrote a line under the response's id.
    const pageLines = entries.filter((entry) => entry.reqId === ids[0]);
    expect(pageLines.map((entry) => entry.route).sort()).toEqual(["root", "routes/login"]);
    expect(entries.filter((entry) => entry.reqId === ids[1]).map((entry) => entry.route)).toEqual(["routes/login"]);
    expect(entries.filter((entry) => entry.reqId === ids[2]).map((entry) => entry.msg)).toEqual([
      "loader routes/livez 200",
    ]);
    expect(entries.filter((entry) => entry.reqId === "lb-7f3a.91:2")).toHaveLength(2);
    // Every line belongs to one of these requests.
    expect(entries.every((entry) => ids.includes(entry.reqId as string))).toBe(true);
    expect(logs.lines.join("\n")).not.toContain('"level":60,x');
  });

  it("a chat's lines name the account and the request, never the cookie, the token or the message's text", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const marker = `marker-${randomUUID()}`;
    const logs = captureLogs();
    let response: Response;
    try {
      response = await sendChat(firstMessage(`please repeat ${marker}`), cookie);
      expect(response.status).toBe(200);
      await readChunks(response);
      await waitUntil(
        "the reply was stored",
        async () => sample(await scrape(), "nuvara_chat_generations_running") === 0,
      );
    } finally {
      logs.restore();
    }
    const requestId = response.headers.get("X-Request-Id");
    expect(requestId).toBeTruthy();
    const chatLines = logs.entries().filter((entry) => entry.route === "routes/api.chat");
    expect(chatLines.length).toBeGreaterThan(0);
    for (const entry of chatLines) {
      expect(entry.reqId).toBe(requestId);
      expect(entry.uid).toBe(account.uid);
    }
    const everything = logs.lines.join("\n");
    // The model's reply repeats the message (the scripted model echoes it), so neither may appear.
    expect(everything).not.toContain(marker);
    expect(everything).not.toContain(cookie.split("=")[1]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(account.email);
    expect(everything).not.toContain(account.password);
  });
});

describe("the compiled build under remix-serve, as operators run it", () => {
  let app: AppProcess | undefined;
  beforeAll(async () => {
    await buildApp();
    app = await startApp({ env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: "info", LOG_FORMAT: "json" } });
  }, 180_000);
  afterAll(async () => {
    await app?.kill("SIGTERM");
  });

  it("answers with X-Request-Id, writes JSON lines under it on stderr and counts the route on /metrics", async () => {
    const page = await fetch(`${app!.origin}/login`);
    expect(page.status).toBe(200);
    const requestId = page.headers.get("X-Request-Id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    expect((await fetch(`${app!.origin}/metrics`)).status).toBe(404);
    const metrics = await fetch(`${app!.origin}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(
      sample(await metrics.text(), "nuvara_http_requests_total", {
        route: "routes/login",
        kind: "loader",
        status: "200",
      }),
    ).toBe(1);

    await waitUntil("the page's lines are written", () => app!.stderr().includes(requestId!));
    const lines = app!
      .stderr()
      .split("\n")
      .filter((line) => line.includes(requestId!))
      .map((line) => JSON.parse(line) as { reqId: string; route: string; level: number });
    expect(lines.map((line) => line.route).sort()).toEqual(["root", "routes/login"]);
    expect(lines.every((line) => line.reqId === requestId && line.level === 30)).toBe(true);
  });
});
