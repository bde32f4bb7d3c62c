import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL, startListener, type Invalidation } from "~/auth/invalidation.server";
import { getSessionUser } from "~/auth/session.server";
import { action as logoutAction } from "~/routes/api.auth.logout";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { databaseTargets, titled, type DatabaseAccess } from "../support/database-targets";
import { healAll, setFault } from "../support/faults";
import { captureLogs } from "../support/log-capture";

/**
 * Invalidation at once everywhere (docs/decisions/002, "Changed"):
 * two remix-serve instances on one PostgreSQL server, auth caches of 30 s.
 * A logout, a role change or a disabled account on instance A shows on B as
 * soon as B hears PostgreSQL's notice — B's caches were warm, and without
 * the notice they would hold for 30 s. Polled for at most 5 s: the notice
 * reaches B over its own connection, which a loaded machine may read a
 * moment after the next request.
 * Run directly and through a transaction pooler, with a direct URL to
 * listen on and without one (then the notice is a row B polls for,
 * docs/decisions/097).
 * Needs a PostgreSQL server (PGlite in local mode is one process): skipped
 * without TEST_DATABASE_URL, which CI sets (and pgbouncer for the pooler).
 */
const serverUrl = process.env.TEST_DATABASE_URL;
/** Well inside the caches' 30 s: only the notice can make the change show this soon. */
const HEARD = { timeout: 5_000, interval: 100 };

for (const [index, target] of databaseTargets().entries()) {
  describe.skipIf(target.unavailable)(titled("auth caches invalidated on every instance", target), () => {
    const firebase = admin();
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let access: DatabaseAccess;
    let a: AppProcess;
    let b: AppProcess;

    beforeAll(async () => {
      await buildApp();
      database = await freshDatabase(serverUrl!, `invalidation_${index}`);
      access = await target.start();
      const env = { ...access.env(database.url), AUTH_CACHE_TTL_SECONDS: "30", LOG_LEVEL: "info" };
      a = await startApp({ env });
      b = await startApp({ env });
    }, 240_000);

    afterAll(async () => {
      await a?.kill("SIGTERM");
      await b?.kill("SIGTERM");
      await access?.stop();
      await database?.drop();
      await firebase.close();
    });

    function page(app: AppProcess, path: string, cookie: string) {
      return fetch(`${app.origin}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
    }

    function post(app: AppProcess, path: string, cookie: string, fields: Record<string, string>) {
      return fetch(`${app.origin}${path}`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
        redirect: "manual",
      });
    }

    /** The dashboard as B shows it: signed in with a plan, or sent to /login. */
    async function dashboardOn(app: AppProcess, cookie: string) {
      const response = await page(app, "/dashboard", cookie);
      if (response.status !== 200) return { signedIn: false, location: response.headers.get("Location") };
      const plan = /class="plan-badge">([^<]*)</.exec(await response.text())?.[1];
      return { signedIn: true, plan };
    }

    /** Both instances hear notices (their first page opens the database); a page on each warms its caches. */
    async function warm(cookie: string) {
      for (const app of [a, b]) expect((await dashboardOn(app, cookie)).signedIn).toBe(true);
      for (const app of [a, b]) {
        for (let tries = 0; !target.noticesReady.test(app.stderr()); tries++) {
          if (tries > 100) throw new Error(`no listener: ${app.stderr()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }

    it("logout on A: B refuses the cookie as soon as it hears of it", async () => {
      const account = await createAccount(firebase, { prefix: "inval-logout" });
      const cookie = await sessionCookieFor(account);
      await warm(cookie);
      expect(await dashboardOn(b, cookie)).toEqual({ signedIn: true, plan: "Free" });

      const logout = await post(a, "/api/auth/logout", cookie, {});
      expect(logout.status).toBe(303);

      await expect
        .poll(() => dashboardOn(b, cookie), HEARD)
        .toEqual({ signedIn: false, location: expect.stringMatching(/^\/login/) });
    });

    it("a role change by an admin on A: B shows the new plan as soon as it hears of it, and a disabled account is logged out", async () => {
      const boss = await createAccount(firebase, { role: "admin", prefix: "inval-admin" });
      const bossCookie = await sessionCookieFor(boss);
      const account = await createAccount(firebase, { prefix: "inval-role" });
      const cookie = await sessionCookieFor(account);
      await warm(cookie);
      expect(await dashboardOn(b, cookie)).toEqual({ signedIn: true, plan: "Free" });

      const change = await post(a, "/admin/users", bossCookie, { email: account.email, role: "premium" });
      expect(change.status).toBe(200);
      await expect.poll(() => dashboardOn(b, cookie), HEARD).toEqual({ signedIn: true, plan: "Premium" });

      const disable = await post(a, "/admin/users", bossCookie, { intent: "disable", uid: account.uid });
      expect(disable.status).toBe(200);
      await expect
        .poll(() => dashboardOn(b, cookie), HEARD)
        .toEqual({ signedIn: false, location: expect.stringMatching(/^\/login/) });
    });
  });
}

describe.skipIf(!serverUrl)("the invalidation listener", () => {
  it("reconnects after its connection is killed and still delivers", async () => {
    const received: Invalidation[] = [];
    const listener = startListener(serverUrl!, { onMessage: (message) => received.push(message) });
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await listener.ready;
      const notify = (uid: string) =>
        client.query("select pg_notify($1, $2)", [CHANNEL, JSON.stringify({ uid, reason: "logout" })]);
      const until = async (done: () => boolean) => {
        for (let tries = 0; !done(); tries++) {
          if (tries > 200) throw new Error("timed out");
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      };
      await notify("before");
      await until(() => received.some((message) => message.uid === "before"));

      const first = listener.pid()!;
      const { rows } = await client.query<{ killed: boolean }>("select pg_terminate_backend($1) as killed", [first]);
      expect(rows[0].killed).toBe(true);
      await until(() => listener.pid() !== null && listener.pid() !== first);

      await notify("after");
      await until(() => received.some((message) => message.uid === "after"));
      // Malformed payloads (anyone connected may NOTIFY) are dropped, not thrown.
      await client.query("select pg_notify($1, 'not json')", [CHANNEL]);
      await notify("last");
      await until(() => received.some((message) => message.uid === "last"));
      expect(received.map((message) => message.uid)).toEqual(["before", "after", "last"]);
    } finally {
      await client.end();
      await listener.stop();
    }
  });
});

describe("publishing fails", () => {
  it("a logout while PostgreSQL is unreachable still signs out, here at once; the failed notice is logged", async () => {
    const firebase = admin();
    const restoreEnv = setAppEnv({ AUTH_CACHE_TTL_SECONDS: "30" });
    const logs = captureLogs();
    try {
      const account = await createAccount(firebase, { prefix: "inval-fault" });
      const cookie = await sessionCookieFor(account);
      const page = () => getSessionUser(appRequest("/dashboard", { cookie }));
      expect((await page()).status).toBe("signed-in"); // caches warm

      await setFault("postgres", "refuse");
      const response = await logoutAction({
        request: appRequest("/api/auth/logout", { method: "POST", cookie, headers: { Origin: APP_ORIGIN } }),
        params: {},
        context: {},
      });
      expect(response.status).toBe(303);
      expect(response.headers.get("Set-Cookie")).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
      expect((await page()).status).toBe("signed-out");
      expect(logs.entries().some((entry) => entry.msg.includes("publishing an auth cache invalidation"))).toBe(true);
    } finally {
      await healAll();
      logs.restore();
      restoreEnv();
      await firebase.close();
    }
  });
});
