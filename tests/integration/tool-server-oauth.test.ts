import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { mcpOauthClients, mcpOauthPending, mcpOauthTokens, mcpServers } from "~/db/schema";
import { deleteAccount } from "~/data/account.server";
import { closeServerSessions } from "~/tools/server-connection.server";
import { action, loader } from "~/routes/tools_.servers";
import { loader as callback } from "~/routes/tools_.servers.callback";
import { startModelServer, type ModelServer } from "../support/model-server";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/oauth-mcp-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { captureLogs } from "../support/log-capture";
import { firstMessage, postChat, readChunks, replyText } from "./chat-support";

/**
 * Servers each user signs in to (docs/decisions/092), against an SDK-built
 * MCP server and its authorization server on loopback: an admin adds one,
 * users connect through the real authorization code flow (the test follows
 * the redirects the browser would), tokens are sealed at rest, refreshed
 * when they expire, revoked on Disconnect, on account deletion and when the
 * server is removed, and a refused grant asks the user to reconnect instead
 * of failing a reply.
 */

const firebase = admin();
let model: ModelServer;
let oauth: OAuthMcpServer;
let shortLived: OAuthMcpServer;
const ENV = {
  LLM_MODELS: "test-model",
  TOOLS_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
  // The servers listen on loopback: the outbound guard lets the app reach them only when allowed.
  OUTBOUND_ALLOW: "127.0.0.1",
  MCP_OWN_SERVER_ROLES: "toolsmith",
};

beforeAll(async () => {
  [model, oauth, shortLived] = await Promise.all([
    startModelServer({ models: ["test-model"] }),
    startOAuthMcpServer(),
    startOAuthMcpServer({ accessTokenSeconds: 2 }),
  ]);
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await closeServerSessions();
  await Promise.all([model.close(), oauth.close(), shortLived.close(), firebase.close()]);
});

beforeEach(async () => {
  model.reset();
  await closeServerSessions();
  await (await getDb()).delete(mcpServers);
});

async function signedIn(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

interface PageBody {
  notice?: string;
  error?: string;
  servers?: Array<{ id: string; name: string; auth?: string; connection?: string; tools: Array<{ name: string }> }>;
}

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<Response>;

async function respond(handler: Handler, request: Request): Promise<Response> {
  try {
    return await handler({ request, params: {}, context: {} });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    return thrown;
  }
}

function post(cookie: string, form: Record<string, string>) {
  return respond(
    action as Handler,
    appRequest("/tools/servers", {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

async function page(cookie: string, path = "/tools/servers"): Promise<PageBody> {
  return (await (await respond(loader as Handler, appRequest(path, { cookie }))).json()) as PageBody;
}

async function addOAuthServer(cookie: string, server: OAuthMcpServer, name = "Tickets") {
  const added = await post(cookie, { intent: "add-server", name, url: server.url, auth: "oauth", roles: "*" });
  expect(await added.json()).toMatchObject({
    ok: true,
    notice: `“${name}” was added. Connect to it to list its tools.`,
  });
  const [row] = await (await getDb()).select().from(mcpServers).where(eq(mcpServers.name, name));
  return row;
}

/** Connect → the authorization server (which approves at once) → the app's callback; returns where the callback sent the user. */
async function connect(cookie: string, serverId: string): Promise<string> {
  const start = await post(cookie, { intent: "connect-server", serverId });
  expect(start.status).toBe(303);
  const authorize = await fetch(start.headers.get("Location")!, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const back = new URL(authorize.headers.get("Location")!);
  expect(back.origin + back.pathname).toBe(`${APP_ORIGIN}/tools/servers/callback`);
  return followCallback(cookie, back);
}

async function followCallback(cookie: string, back: URL): Promise<string> {
  const answered = await respond(callback as Handler, appRequest(back.pathname + back.search, { cookie }));
  expect(answered.status).toBe(303);
  return answered.headers.get("Location")!;
}

/** Starts a sign-in and stops at the authorization server's redirect back: the callback address with code and state. */
async function startAndApprove(cookie: string, serverId: string): Promise<URL> {
  const start = await post(cookie, { intent: "connect-server", serverId });
  const authorize = await fetch(start.headers.get("Location")!, { redirect: "manual" });
  return new URL(authorize.headers.get("Location")!);
}

function offeredTools(): string[] {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  return (chats.at(-1)?.body?.tools ?? []).map((tool) => tool.function.name);
}

async function ask(cookie: string) {
  model.enqueue({ type: "text", text: "Done." });
  return readChunks(await postChat(firstMessage("Hello"), { cookie }));
}

async function tokenRow(uid: string, serverId: string) {
  const [row] = await (
    await getDb()
  )
    .select()
    .from(mcpOauthTokens)
    .where(eq(mcpOauthTokens.uid, uid))
    .then((rows) => rows.filter((one) => one.serverId === serverId));
  return row;
}

/** Remove, asked twice as the page does; `own` for an owner removing their own server. */
async function remove(cookie: string, serverId: string, own = false) {
  const form = { intent: "delete-server", serverId, ...(own ? { own: "yes" } : {}) };
  expect(await (await post(cookie, form)).json()).toEqual({ confirmDelete: serverId });
  return (await (await post(cookie, { ...form, confirm: "yes" })).json()) as PageBody;
}

/** Waits until the authorization server has seen every one of these tokens revoked. */
async function seenRevoked(server: OAuthMcpServer, grants: ReadonlyArray<{ access: string; refresh: string }>) {
  const tokens = grants.flatMap(({ access, refresh }) => [refresh, access]);
  await vi.waitFor(() => expect(server.seen.revoked).toEqual(expect.arrayContaining(tokens)), { timeout: 10_000 });
}

/** Everything the OAuth tables and the servers table hold, as text. */
async function storedText(): Promise<string> {
  const db = await getDb();
  const tables = await Promise.all([
    db.select().from(mcpServers),
    db.select().from(mcpOauthClients),
    db.select().from(mcpOauthTokens),
    db.select().from(mcpOauthPending),
  ]);
  return JSON.stringify(tables);
}

describe("tool servers each user signs in to", () => {
  it("a user connects end to end; the tokens are sealed; only a connected user is offered the tools", async () => {
    const boss = await signedIn("admin");
    const registered = oauth.seen.registrations.length;
    const server = await addOAuthServer(boss.cookie, oauth);
    expect(server).toMatchObject({ authKind: "oauth", oauthClientId: null });
    expect((await page(boss.cookie)).servers![0]).toMatchObject({ auth: "oauth", connection: "connect", tools: [] });

    // The admin connects first: the server's tools are listed with their sign-in.
    expect(await connect(boss.cookie, server.id)).toBe(`/tools/servers?signin=connected&server=${server.id}`);
    const adminView = await page(boss.cookie, `/tools/servers?signin=connected&server=${server.id}`);
    expect(adminView.notice).toBe("Connected to Tickets.");
    expect(adminView.servers![0]).toMatchObject({ connection: "connected" });
    expect(adminView.servers![0].tools.map((tool) => tool.name)).toEqual(["whoami", "echo"]);

    const user = await signedIn();
    const other = await signedIn();
    expect((await page(user.cookie)).servers![0]).toMatchObject({ connection: "connect" });
    await connect(user.cookie, server.id);

    // The authorization asked for: PKCE S256, the server's URL as the resource, the app's callback.
    const asked = oauth.seen.authorizations.at(-1)!;
    expect(asked).toMatchObject({ redirectUri: `${APP_ORIGIN}/tools/servers/callback` });
    expect(String(asked.resource)).toBe(oauth.url);
    expect(asked.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // One registration for the server, kept and used by every user.
    expect(oauth.seen.registrations).toHaveLength(registered + 1);
    expect(oauth.seen.registrations.at(-1)!).toMatchObject({
      client_name: "Nuvara",
      grant_types: ["authorization_code", "refresh_token"],
    });

    const row = await tokenRow(user.account.uid, server.id);
    expect(row).toMatchObject({ clientId: oauth.seen.registrations.at(-1)!.client_id, reconnectAt: null });
    expect(row.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const stored = await storedText();
    for (const { access, refresh } of oauth.seen.grants) {
      expect(stored).not.toContain(access);
      expect(stored).not.toContain(refresh);
    }
    expect(stored).not.toContain(oauth.seen.registrations.at(-1)!.client_secret!);

    await ask(user.cookie);
    expect(offeredTools()).toEqual(expect.arrayContaining(["tickets__whoami", "tickets__echo"]));
    await ask(other.cookie);
    expect(offeredTools()).toContain("calculator");
    expect(offeredTools().filter((name) => name.startsWith("tickets__"))).toEqual([]);
  });

  it("with a client the admin configured, no registration is made and its secret is sealed", async () => {
    oauth.preRegister({
      client_id: "nuvara-configured",
      client_secret: "configured-secret-value",
      redirect_uris: [`${APP_ORIGIN}/tools/servers/callback`],
    });
    const boss = await signedIn("admin");
    const registered = oauth.seen.registrations.length;
    const added = await post(boss.cookie, {
      intent: "add-server",
      name: "Configured",
      url: oauth.url,
      auth: "oauth",
      oauthClientId: "nuvara-configured",
      oauthClientSecret: "configured-secret-value",
      roles: "*",
    });
    expect(await added.json()).toMatchObject({ ok: true });
    const [server] = await (await getDb()).select().from(mcpServers);
    expect(server).toMatchObject({ authKind: "oauth", oauthClientId: "nuvara-configured" });
    expect(await connect(boss.cookie, server.id)).toBe(`/tools/servers?signin=connected&server=${server.id}`);
    expect(oauth.seen.registrations).toHaveLength(registered);
    expect(oauth.seen.authorizations.at(-1)).toMatchObject({ redirectUri: `${APP_ORIGIN}/tools/servers/callback` });
    expect(await tokenRow(boss.account.uid, server.id)).toMatchObject({ clientId: "nuvara-configured" });
    const stored = await storedText();
    expect(stored).not.toContain("configured-secret-value");
    const page_ = await page(boss.cookie);
    expect(JSON.stringify(page_)).not.toContain("configured-secret-value");
    expect(page_.servers![0].tools.map((tool) => tool.name)).toEqual(["whoami", "echo"]);
  });

  it("the model calls a tool with the user's own token", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    await connect(boss.cookie, server.id);
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "tickets__whoami", arguments: {} }] },
      { type: "text", text: "Checked." },
    );
    const chunks = await readChunks(await postChat(firstMessage("Who am I?"), { cookie: boss.cookie }));
    expect(replyText(chunks)).toBe("Checked.");
    const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
    const toolMessage = chats.at(-1)!.body!.messages!.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain(`client ${oauth.seen.registrations.at(-1)!.client_id}`);
    expect(oauth.seen.accepted).toContain(oauth.seen.grants.at(-1)!.access);
  });

  it("an expired access token is refreshed and the new pair kept", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, shortLived, "Short");
    await connect(boss.cookie, server.id);
    const before = await tokenRow(boss.account.uid, server.id);
    const refreshes = shortLived.seen.refreshes;
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(before.expiresAt!.getTime() + 1000), {
      timeout: 10_000,
      interval: 100,
    });

    await ask(boss.cookie);
    expect(offeredTools()).toEqual(expect.arrayContaining(["short__whoami", "short__echo"]));
    expect(shortLived.seen.refreshes).toBeGreaterThan(refreshes);
    const after = await tokenRow(boss.account.uid, server.id);
    expect(after.accessTokenSealed).not.toBe(before.accessTokenSealed);
    expect(after.refreshTokenSealed).not.toBe(before.refreshTokenSealed);
    expect(after.reconnectAt).toBeNull();
    // The rotated refresh token is the one kept: the old one is spent.
    const latest = shortLived.seen.grants.at(-1)!;
    expect(shortLived.refreshTokenIsLive(latest.refresh)).toBe(true);
  });

  it("Disconnect revokes at the authorization server and the tools are no longer offered", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    await connect(boss.cookie, server.id);
    const mine = oauth.seen.grants.at(-1)!;
    await ask(boss.cookie);
    expect(offeredTools()).toContain("tickets__echo");

    const disconnected = await post(boss.cookie, { intent: "disconnect-server", serverId: server.id });
    expect(await disconnected.json()).toMatchObject({
      ok: true,
      notice: "Disconnected from Tickets; its sign-in was revoked.",
    });
    expect(oauth.seen.revoked).toContain(mine.refresh);
    expect(await tokenRow(boss.account.uid, server.id)).toBeUndefined();
    // The authorization server refuses the old refresh token.
    const client = oauth.seen.registrations.at(-1)!;
    const refused = await fetch(new URL("/token", oauth.issuer), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: mine.refresh,
        client_id: client.client_id,
        client_secret: client.client_secret!,
      }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_grant" });

    await ask(boss.cookie);
    expect(offeredTools().filter((name) => name.startsWith("tickets__"))).toEqual([]);
    expect((await page(boss.cookie)).servers![0]).toMatchObject({ connection: "connect" });
  });

  it("a grant the server no longer honours asks the user to reconnect, and the reply goes on without its tools", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    await connect(boss.cookie, server.id);
    await closeServerSessions();
    oauth.revokeEverything();

    const chunks = await ask(boss.cookie);
    expect(replyText(chunks)).toBe("Done.");
    expect(offeredTools()).toContain("calculator");
    expect(offeredTools().filter((name) => name.startsWith("tickets__"))).toEqual([]);
    expect((await tokenRow(boss.account.uid, server.id)).reconnectAt).not.toBeNull();
    expect((await page(boss.cookie)).servers![0]).toMatchObject({ connection: "reconnect" });

    // A later reply does not even try; reconnecting brings the tools back.
    const accepted = oauth.seen.accepted.length;
    await ask(boss.cookie);
    expect(oauth.seen.accepted).toHaveLength(accepted);
    await connect(boss.cookie, server.id);
    expect((await page(boss.cookie)).servers![0]).toMatchObject({ connection: "connected" });
    await ask(boss.cookie);
    expect(offeredTools()).toContain("tickets__whoami");
  });

  it("a forged, someone else's, stale or refused sign-in is turned away with a clear message", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    const user = await signedIn();

    const forged = await followCallback(
      boss.cookie,
      new URL(`${APP_ORIGIN}/tools/servers/callback?code=x&state=forged`),
    );
    expect(forged).toBe("/tools/servers?signin=unknown");
    expect((await page(boss.cookie, forged)).error).toMatch(/^That sign-in was not started by you from this page/);

    // The boss's state, brought back by another user: refused, and spent.
    const bosses = await startAndApprove(boss.cookie, server.id);
    expect(await followCallback(user.cookie, bosses)).toBe("/tools/servers?signin=unknown");
    expect(await tokenRow(user.account.uid, server.id)).toBeUndefined();
    expect(await followCallback(boss.cookie, bosses)).toBe("/tools/servers?signin=unknown");

    // Eleven minutes later.
    const late = await startAndApprove(boss.cookie, server.id);
    await (
      await getDb()
    )
      .update(mcpOauthPending)
      .set({ createdAt: new Date(Date.now() - 11 * 60_000) })
      .where(eq(mcpOauthPending.state, late.searchParams.get("state")!));
    const stale = await followCallback(boss.cookie, late);
    expect(stale).toBe(`/tools/servers?signin=stale&server=${server.id}`);
    expect((await page(boss.cookie, stale)).error).toBe(
      "That sign-in to Tickets took longer than 10 minutes. Please choose Connect again.",
    );

    // The user said no at the authorization server.
    const approved = await startAndApprove(boss.cookie, server.id);
    const denied = new URL(`${APP_ORIGIN}/tools/servers/callback`);
    denied.search = new URLSearchParams({
      error: "access_denied",
      state: approved.searchParams.get("state")!,
    }).toString();
    const deniedAt = await followCallback(boss.cookie, denied);
    expect((await page(boss.cookie, deniedAt)).error).toBe(
      "The sign-in to Tickets was not approved; nothing was connected.",
    );
    expect(await tokenRow(boss.account.uid, server.id)).toBeUndefined();
  });

  it("deleting the account deletes the user's tokens and revokes them", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    const user = await signedIn();
    await connect(user.cookie, server.id);
    const theirs = oauth.seen.grants.at(-1)!;
    await startAndApprove(user.cookie, server.id);

    const counts = await deleteAccount(await getDb(), { uid: user.account.uid, email: user.account.email });
    expect(counts).toMatchObject({ mcp_oauth_tokens: 1, mcp_oauth_pending: 1 });
    expect(await tokenRow(user.account.uid, server.id)).toBeUndefined();
    await vi.waitFor(() => expect(oauth.refreshTokenIsLive(theirs.refresh)).toBe(false), { timeout: 10_000 });
  });

  it("removing a shared server revokes every user's sign-in at the authorization server and deletes the tokens", async () => {
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, oauth);
    await connect(boss.cookie, server.id);
    const bosses = oauth.seen.grants.at(-1)!;
    const user = await signedIn();
    await connect(user.cookie, server.id);
    const users = oauth.seen.grants.at(-1)!;

    expect((await remove(boss.cookie, server.id)).notice).toBe("“Tickets” was removed.");
    expect(await tokenRow(boss.account.uid, server.id)).toBeUndefined();
    expect(await tokenRow(user.account.uid, server.id)).toBeUndefined();
    await seenRevoked(oauth, [bosses, users]);
    expect(oauth.refreshTokenIsLive(users.refresh)).toBe(false);
    expect((await page(user.cookie)).servers).toEqual([]);
  });

  it("an owner removing their own server revokes their sign-in to it", async () => {
    const owner = await signedIn("toolsmith");
    const added = await post(owner.cookie, {
      intent: "add-server",
      own: "yes",
      name: "Mine",
      url: oauth.url,
      auth: "oauth",
    });
    expect(await added.json()).toMatchObject({ ok: true });
    const [server] = await (await getDb()).select().from(mcpServers);
    await connect(owner.cookie, server.id);
    const mine = oauth.seen.grants.at(-1)!;

    expect((await remove(owner.cookie, server.id, true)).notice).toBe("“Mine” was removed.");
    expect(await tokenRow(owner.account.uid, server.id)).toBeUndefined();
    await seenRevoked(oauth, [mine]);
  });

  it("an authorization server that cannot be reached does not hold the removal up; the log says so without a token", async () => {
    const gone = await startOAuthMcpServer();
    const boss = await signedIn("admin");
    const server = await addOAuthServer(boss.cookie, gone, "Gone");
    await connect(boss.cookie, server.id);
    const { access, refresh } = gone.seen.grants.at(-1)!;
    await gone.close();

    const logs = captureLogs();
    try {
      expect((await remove(boss.cookie, server.id)).notice).toBe("“Gone” was removed.");
      expect(await tokenRow(boss.account.uid, server.id)).toBeUndefined();
      await vi.waitFor(
        () =>
          expect(logs.entries().map((entry) => entry.msg)).toContain(
            "[mcp] Gone was removed; its authorization server confirmed revoking 0 of 2 tokens",
          ),
        { timeout: 15_000 },
      );
      expect(logs.lines.join("\n")).not.toContain(access);
      expect(logs.lines.join("\n")).not.toContain(refresh);
    } finally {
      logs.restore();
    }
  });
});
