import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminAuth } from "~/firebase.server";
import { HEALTHY_FOR_MS } from "~/health/store-health.server";
import { CROSS_ORIGIN_REFUSAL } from "~/http/origin-guard.server";
import { appRequest } from "../support/app-env";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { healAll, setFault } from "../support/faults";
import { appHandler } from "../support/remix-app";

/**
 * The edges of HTTP a security test found:
 * /healthz answered without the security headers and made three backend
 * calls per request for anyone; the rest needs the real server
 * (remix-serve and the compiled build, as operators run it): TRACE, and the
 * origin check wired into the build through server.ts (ADR 047).
 */

let handle: (request: Request) => Promise<Response>;

/** Moves the app's clock (Date.now only) past any kept health answer. */
let clockOffset = 0;
function advanceClock(ms: number) {
  clockOffset += ms;
}

beforeAll(async () => {
  handle = await appHandler();
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + clockOffset);
});

afterAll(() => {
  vi.restoreAllMocks();
});

function healthz() {
  return handle(appRequest("/healthz"));
}

describe("/healthz", () => {
  it("answers with the security headers of every API response", async () => {
    advanceClock(HEALTHY_FOR_MS + 1);
    const response = await healthz();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ok",
      stores: { identity: "ok", firestore: "ok", postgres: "ok" },
    });
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
    expect(response.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
  });

  it("a flood shares one check, and a healthy answer is kept a few seconds, then checked again", async () => {
    advanceClock(HEALTHY_FOR_MS + 1);
    const lookups = vi.spyOn(adminAuth(), "getUser");
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => healthz()));
    expect(await concurrent[0].clone().json()).toEqual({
      status: "ok",
      stores: { identity: "ok", firestore: "ok", postgres: "ok" },
    });
    expect(concurrent.map((response) => response.status)).toEqual(Array(20).fill(200));
    for (let i = 0; i < 20; i++) expect((await healthz()).status).toBe(200);
    // 40 answers, one identity lookup (and one Firestore read, one query).
    expect(lookups).toHaveBeenCalledTimes(1);

    advanceClock(HEALTHY_FOR_MS + 1);
    expect((await healthz()).status).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(2);
    lookups.mockRestore();
  });

  it("a degraded answer is not kept: the recovery shows within the time a healthy one is kept", async () => {
    advanceClock(HEALTHY_FOR_MS + 1);
    await setFault("postgres", "refuse");
    try {
      const down = await healthz();
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ status: "degraded", stores: { postgres: "unreachable" } });
    } finally {
      await healAll();
    }
    // All within a second, less than a healthy answer is kept: a kept 503
    // would answer every one. (The first may fail on a connection the outage cut.)
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await healthz()).status;
    }
    expect(status).toBe(200);
  });
});

describe("the built app under remix-serve", () => {
  let app: AppProcess;
  beforeAll(async () => {
    await buildApp();
    app = await startApp();
  }, 180_000);
  afterAll(async () => {
    await app?.kill("SIGTERM");
  });

  it("TRACE is refused without echoing the request (no cross-site tracing), and the server keeps serving", async () => {
    const { request } = await import("node:http");
    const secret = "trace-secret-cookie-value";
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // fetch() refuses to send TRACE at all: a raw request, as an attacker's tool would.
      const req = request(
        `${app.origin}/`,
        { method: "TRACE", headers: { Cookie: `__session=${secret}`, "X-Echo": secret } },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    // remix-serve answers 500 before the build runs (see ADR 047): refused, never 2xx.
    expect(status).toBeGreaterThanOrEqual(400);
    expect(body).not.toContain(secret);
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
  });

  it("the compiled build refuses a cross-origin ?_data post to a page action with the JSON 403", async () => {
    const response = await fetch(`${app.origin}/admin/users?_data=routes%2Fadmin.users`, {
      method: "POST",
      headers: { Origin: "http://127.0.0.1:8999", "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=someone%40example.com&role=admin",
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: CROSS_ORIGIN_REFUSAL });
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
  });

  it("the compiled build refuses a document post without an Origin with the error page saying why", async () => {
    const response = await fetch(`${app.origin}/dashboard`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "intent=display-name&displayName=x",
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(CROSS_ORIGIN_REFUSAL);
  });

  it("the compiled build refuses a cross-origin document post to a page with the 403 page, not Remix's bare 500", async () => {
    const response = await fetch(`${app.origin}/admin/users`, {
      method: "POST",
      headers: { Origin: "http://127.0.0.1:8999", "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=someone%40example.com&role=admin",
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(CROSS_ORIGIN_REFUSAL);
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
  });

  it("unknown /api paths are a JSON 404 there too; /healthz carries the headers", async () => {
    const missing = await fetch(`${app.origin}/api/nonexistent`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "Not found." });
    const health = await fetch(`${app.origin}/healthz`);
    expect(health.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(health.headers.get("X-Frame-Options")).toBe("DENY");
  });

  it("same-origin posts still reach the actions", async () => {
    const response = await fetch(`${app.origin}/api/auth/logout`, {
      method: "POST",
      headers: { Origin: app.origin },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
  });
});
