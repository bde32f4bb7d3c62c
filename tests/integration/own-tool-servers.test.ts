import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { mcpServers } from "~/db/schema";
import { deleteAccount, exportAccountData, getAccountDetails } from "~/data/account.server";
import { MAX_OWN_SERVERS } from "~/data/mcp-servers.server";
import { openServersPage, postServersPage, toolServerSuite } from "../support/tool-server-suite";
import { firstMessage, postChat, readChunks } from "./chat-support";

/**
 * Tool servers a user adds for themselves (docs/decisions/094), against the
 * reference server over real HTTP: only a role in MCP_OWN_SERVER_ROLES may
 * add them, only their owner sees and uses them (another user's id is not
 * found), admins see them by owner and may remove them, and they go with
 * the account.
 */

const ENV = {
  LLM_MODELS: "test-model",
  OUTBOUND_ALLOW: "127.0.0.1",
  TOOLS_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
  MCP_OWN_SERVER_ROLES: "toolsmith",
};
const suite = toolServerSuite(ENV);
const { signedIn, offeredTools } = suite;
const page = openServersPage;
const post = postServersPage;

function addOwn(cookie: string, extra: Record<string, string> = {}) {
  return post(cookie, {
    intent: "add-server",
    own: "yes",
    name: "Mine",
    url: suite.everything.url,
    auth: "none",
    ...extra,
  });
}

async function ownServerOf(cookie: string) {
  return (await page(cookie)).body.ownServers![0];
}

async function ask(cookie: string) {
  suite.model.enqueue({ type: "text", text: "Done." });
  await readChunks(await postChat(firstMessage("Hello"), { cookie }));
}

describe("a user's own tool servers", () => {
  it("a user of an allowed role adds one: it is listed for them alone, and only their model is offered its tools", async () => {
    const owner = await signedIn("toolsmith");
    const colleague = await signedIn("toolsmith");
    expect((await page(owner.cookie)).body.mayAddOwn).toBe(true);

    const added = await addOwn(owner.cookie);
    expect(added.body.notice).toMatch(/^“Mine” was added with \d+ tools\.$/);
    const mine = (await page(owner.cookie)).body;
    expect(mine.servers).toEqual([]);
    expect(mine.ownServers).toEqual([
      expect.objectContaining({
        name: "Mine",
        auth: "none",
        tools: expect.arrayContaining([expect.objectContaining({ name: "echo", enabled: true })]),
      }),
    ]);
    const theirs = (await page(colleague.cookie)).body;
    expect(theirs.ownServers).toEqual([]);
    expect(JSON.stringify(theirs)).not.toContain(mine.ownServers![0].id);

    await ask(owner.cookie);
    expect(offeredTools()).toEqual(expect.arrayContaining(["mine__echo", "mine__get-sum"]));
    await ask(colleague.cookie);
    expect(offeredTools()).toContain("calculator");
    expect(offeredTools().filter((name) => name.startsWith("mine__"))).toEqual([]);

    // Each user's names are their own: a colleague may call theirs "Mine" too.
    expect((await addOwn(colleague.cookie, { url: "http://127.0.0.1:9/mcp" })).body.ok).toBe(true);
    const again = await addOwn(owner.cookie);
    expect(again).toMatchObject({
      status: 400,
      body: { errors: { name: "You already have a server with this name." } },
    });
  });

  it("another user cannot switch, choose approval for, list again, connect to or remove it by its id", async () => {
    const owner = await signedIn("toolsmith");
    const other = await signedIn("toolsmith");
    await addOwn(owner.cookie);
    const server = await ownServerOf(owner.cookie);
    const target = { serverId: server.id, tool: "echo" };

    expect(await post(other.cookie, { intent: "set-mcp-tool", ...target, enabled: "off" })).toMatchObject({
      status: 404,
      body: { error: "That tool is not available to you." },
    });
    expect(await post(other.cookie, { intent: "set-mcp-approval", ...target, approval: "ask" })).toMatchObject({
      status: 404,
    });
    for (const intent of ["delete-server", "refresh"]) {
      expect(await post(other.cookie, { intent, own: "yes", serverId: server.id, confirm: "yes" })).toMatchObject({
        status: 404,
        body: { error: "That server no longer exists." },
      });
    }
    // Without own=yes a server is the admins' to change.
    expect((await post(other.cookie, { intent: "delete-server", serverId: server.id, confirm: "yes" })).status).toBe(
      403,
    );
    expect((await post(other.cookie, { intent: "connect-server", serverId: server.id })).status).toBe(404);
    await ask(owner.cookie);
    expect(offeredTools()).toContain("mine__echo");

    // The owner switches a tool off and removes the server, asked twice like the admins' Remove.
    expect((await post(owner.cookie, { intent: "set-mcp-tool", ...target, enabled: "off" })).body.ok).toBe(true);
    await ask(owner.cookie);
    expect(offeredTools()).not.toContain("mine__echo");
    expect(offeredTools()).toContain("mine__get-sum");
    const remove = { intent: "delete-server", own: "yes", serverId: server.id };
    expect((await post(owner.cookie, remove)).body).toEqual({ confirmDelete: server.id });
    expect((await post(owner.cookie, { ...remove, confirm: "yes" })).body.notice).toBe("“Mine” was removed.");
    expect((await page(owner.cookie)).body.ownServers).toEqual([]);
  });

  it("a looser approval is refused in words true for the server: its own hints on an own server, the admin on a shared one", async () => {
    const owner = await signedIn("toolsmith");
    const boss = await signedIn("admin");
    await addOwn(owner.cookie);
    const mine = await ownServerOf(owner.cookie);
    // The reference server does not mark this tool as only reading: it asks every time, and its owner cannot loosen it.
    const logging = { intent: "set-mcp-approval", serverId: mine.id, tool: "toggle-simulated-logging" };
    expect(await post(owner.cookie, { ...logging, approval: "once" })).toMatchObject({
      status: 400,
      body: {
        error: "toggle-simulated-logging allows at most “Ask every time”: its server does not mark it “Reads only”.",
      },
    });
    // Echo says it only reads: every choice is within what it allows.
    expect(await post(owner.cookie, { ...logging, tool: "echo", approval: "once" })).toMatchObject({
      status: 200,
      body: { notice: "echo: Ask once per chat." },
    });

    await post(boss.cookie, {
      intent: "add-server",
      name: "Shared",
      url: suite.everything.url,
      auth: "none",
      roles: "*",
    });
    const shared = (await page(owner.cookie)).body.servers![0];
    expect(await post(owner.cookie, { ...logging, serverId: shared.id, approval: "once" })).toMatchObject({
      status: 400,
      body: { error: "Your admin allows at most “Ask every time” for toggle-simulated-logging." },
    });
  });

  it("a role not in MCP_OWN_SERVER_ROLES is refused, and a user has at most 10", async () => {
    const premium = await signedIn("premium");
    expect((await page(premium.cookie)).body.mayAddOwn).toBe(false);
    expect(await addOwn(premium.cookie)).toMatchObject({
      status: 403,
      body: { error: "Your role may not add tool servers of its own." },
    });
    expect(await (await getDb()).select().from(mcpServers)).toEqual([]);

    const owner = await signedIn("toolsmith");
    // Nothing listens on port 9 on loopback: each is added at once, kept with why it can't be reached.
    for (let index = 1; index <= MAX_OWN_SERVERS; index++) {
      const added = await addOwn(owner.cookie, { name: `Server ${index}`, url: "http://127.0.0.1:9/mcp" });
      expect(added.body.ok).toBe(true);
    }
    const eleventh = await addOwn(owner.cookie, { name: "One too many" });
    expect(eleventh).toMatchObject({
      status: 400,
      body: {
        error: "You have 10 servers of your own, the most allowed: remove one to add another.",
        values: { name: "One too many", url: suite.everything.url },
      },
    });
    expect((await page(owner.cookie)).body.ownServers).toHaveLength(MAX_OWN_SERVERS);
  });

  it("bad input gets a clear message and keeps what was typed; a secret header is sealed and not exported", async () => {
    const owner = await signedIn("toolsmith");
    const bad = await addOwn(owner.cookie, { url: "ftp://files.example.com", name: "My files" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.url).toMatch(/http:\/\/ or https:\/\//);
    expect(bad.body.values).toMatchObject({ name: "My files", url: "ftp://files.example.com" });

    const added = await addOwn(owner.cookie, { auth: "header", headerName: "X-Api-Key", headerValue: "own-secret" });
    expect(added.body.ok).toBe(true);
    const [row] = await (await getDb()).select().from(mcpServers);
    expect(JSON.stringify(row)).not.toContain("own-secret");
    expect((await ownServerOf(owner.cookie)).auth).toBe("X-Api-Key");
    const exported = await exportAccountData(await getDb(), await getAccountDetails(owner.account.uid), {
      role: "toolsmith",
      plan: "Free",
    });
    expect(exported.toolServers).toEqual([
      { name: "Mine", url: suite.everything.url, authKind: "header", createdAt: expect.any(String) },
    ]);
    expect(JSON.stringify(exported)).not.toContain(row.headerValueSealed!);
  });

  it("admins see every user's own servers by owner and may remove one, not change who may use it", async () => {
    const boss = await signedIn("admin");
    const owner = await signedIn("toolsmith");
    await addOwn(owner.cookie);
    const server = await ownServerOf(owner.cookie);

    const seen = (await page(boss.cookie)).body;
    expect(seen.servers).toEqual([]);
    expect(seen.usersServers).toEqual([
      expect.objectContaining({ id: server.id, name: "Mine", owner: owner.account.email }),
    ]);
    // An admin is not offered a user's own server.
    await ask(boss.cookie);
    expect(offeredTools().filter((name) => name.startsWith("mine__"))).toEqual([]);
    expect(await post(boss.cookie, { intent: "set-roles", serverId: server.id, roles: "*" })).toMatchObject({
      status: 404,
    });

    const remove = { intent: "delete-server", serverId: server.id };
    expect((await post(boss.cookie, remove)).body).toEqual({ confirmDelete: server.id });
    expect((await post(boss.cookie, { ...remove, confirm: "yes" })).body.notice).toBe("“Mine” was removed.");
    expect((await page(owner.cookie)).body.ownServers).toEqual([]);
  });

  it("deleting the account deletes its own servers, and no one else's", async () => {
    const leaving = await signedIn("toolsmith");
    const staying = await signedIn("toolsmith");
    const boss = await signedIn("admin");
    await addOwn(leaving.cookie);
    await addOwn(staying.cookie, { url: "http://127.0.0.1:9/mcp" });
    await post(boss.cookie, {
      intent: "add-server",
      name: "Shared",
      url: "http://127.0.0.1:9/mcp",
      auth: "none",
      roles: "*",
    });
    const db = await getDb();

    const counts = await deleteAccount(db, { uid: leaving.account.uid, email: leaving.account.email });
    expect(counts).toMatchObject({ mcp_servers: 1 });
    expect(await db.select().from(mcpServers).where(eq(mcpServers.ownerUid, leaving.account.uid))).toEqual([]);
    const left = await db.select({ name: mcpServers.name, ownerUid: mcpServers.ownerUid }).from(mcpServers);
    expect(left).toEqual(
      expect.arrayContaining([
        { name: "Mine", ownerUid: staying.account.uid },
        { name: "Shared", ownerUid: null },
      ]),
    );
    expect(left).toHaveLength(2);
  });
});
