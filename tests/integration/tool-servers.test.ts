import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { mcpServers, messages } from "~/db/schema";
import { mcpServerHeaders } from "~/data/mcp-servers.server";
import { openServersPage, postServersPage, toolServerSuite } from "../support/tool-server-suite";
import { chunkOfType, firstMessage, postChat, readChunks, replyText } from "./chat-support";

/**
 * MCP servers an admin adds on the Tools area, against the reference server
 * over real HTTP: who may use each server and tool decides what the model is
 * offered, the user's switches take tools away, and a header's secret is
 * kept sealed (docs/decisions/090).
 */

const ENV = {
  LLM_MODELS: "test-model",
  OUTBOUND_ALLOW: "127.0.0.1",
  TOOLS_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
};
const suite = toolServerSuite(ENV);
const { signedIn, offeredTools } = suite;

async function addEverything(cookie: string, extra: Record<string, string | string[]> = {}) {
  return postServersPage(cookie, {
    intent: "add-server",
    name: "Everything",
    url: suite.everything.url,
    auth: "none",
    roles: "*",
    ...extra,
  });
}

async function storedServer() {
  const [row] = await (await getDb()).select().from(mcpServers);
  return row;
}

async function ask(cookie: string, text = "Hello") {
  suite.model.enqueue({ type: "text", text: "Done." });
  return readChunks(await postChat(firstMessage(text), { cookie }));
}

describe("tool servers on the Tools area", () => {
  it("an admin adds a server: its tools are listed, every role sees them, and the model is offered them", async () => {
    const boss = await signedIn("admin");
    const added = await addEverything(boss.cookie);
    expect(added.body.notice).toMatch(/^“Everything” was added with \d+ tools\.$/);
    const server = await storedServer();
    expect(server.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(server.tools.find((tool) => tool.name === "echo")).toMatchObject({ title: "Echo Tool", readOnly: true });

    const user = await signedIn();
    const page = await openServersPage(user.cookie);
    expect(page.body.servers).toHaveLength(1);
    expect(page.body.servers![0]).toMatchObject({
      name: "Everything",
      tools: expect.arrayContaining([expect.objectContaining({ name: "echo", enabled: true })]),
    });
    // What only admins see is not sent to a user's page.
    expect(page.body.servers![0].roles).toBeUndefined();

    await ask(user.cookie);
    expect(offeredTools()).toEqual(expect.arrayContaining(["calculator", "everything__echo", "everything__get-sum"]));
  });

  it("the model calls a server's tool: the result comes back framed as the server's data, and is stored with the reply", async () => {
    const boss = await signedIn("admin");
    await addEverything(boss.cookie);
    const user = await signedIn();
    suite.model.enqueue(
      { type: "tool-calls", calls: [{ name: "everything__echo", arguments: { message: "hello there" } }] },
      { type: "text", text: "It said hello." },
    );
    const body = firstMessage("Echo something");
    const chunks = await readChunks(await postChat(body, { cookie: user.cookie }));
    expect(replyText(chunks)).toBe("It said hello.");
    expect(chunkOfType(chunks, "tool-output-available")?.output).toMatchObject({
      isError: false,
      text: expect.stringContaining("Echo: hello there"),
    });
    const chats = suite.model.requests.filter((request) => request.path === "/v1/chat/completions");
    const toolMessage = chats.at(-1)!.body!.messages!.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("Echo: hello there");
    expect(JSON.stringify(toolMessage)).toMatch(/Everything/);

    const rows = await (await getDb()).select().from(messages).where(eq(messages.conversationId, body.conversationId));
    const reply = rows.find((row) => row.role === "assistant")!;
    expect(JSON.stringify(reply.parts)).toContain("Echo: hello there");
  });

  it("a server for some roles only, and a tool narrowed to admins, are never offered to other roles", async () => {
    const boss = await signedIn("admin");
    await addEverything(boss.cookie, { roles: ["premium", "admin"] });
    const server = await storedServer();
    const user = await signedIn();
    const premium = await signedIn("premium");

    await ask(user.cookie);
    expect(offeredTools().filter((name) => name.startsWith("everything__"))).toEqual([]);
    expect((await openServersPage(user.cookie)).body.servers).toEqual([]);

    const narrowed = await postServersPage(boss.cookie, {
      intent: "set-tool-roles",
      serverId: server.id,
      tool: "echo",
      roles: "admin",
    });
    expect(narrowed.body.notice).toBe("Saved: who may use echo.");
    await ask(premium.cookie);
    expect(offeredTools()).toContain("everything__get-sum");
    expect(offeredTools()).not.toContain("everything__echo");
    await ask(boss.cookie);
    expect(offeredTools()).toContain("everything__echo");

    // A user cannot switch on what their role may not use.
    const refused = await postServersPage(premium.cookie, {
      intent: "set-mcp-tool",
      serverId: server.id,
      tool: "echo",
      enabled: "on",
    });
    expect(refused).toMatchObject({ status: 404, body: { error: "That tool is not available to you." } });
    // Only admins change who may use a server.
    const notAdmin = await postServersPage(premium.cookie, {
      intent: "set-roles",
      serverId: server.id,
      roles: "*",
    });
    expect(notAdmin.status).toBe(403);
  });

  it("a tool the user switched off is not offered in their chats, and only theirs", async () => {
    const boss = await signedIn("admin");
    await addEverything(boss.cookie);
    const server = await storedServer();
    const user = await signedIn();
    const switched = await postServersPage(user.cookie, {
      intent: "set-mcp-tool",
      serverId: server.id,
      tool: "get-sum",
      enabled: "off",
    });
    expect(switched.body.ok).toBe(true);
    const page = await openServersPage(user.cookie);
    expect(page.body.servers![0].tools.find((tool) => tool.name === "get-sum")!.enabled).toBe(false);

    await ask(user.cookie);
    expect(offeredTools()).toContain("everything__echo");
    expect(offeredTools()).not.toContain("everything__get-sum");
    await ask(boss.cookie);
    expect(offeredTools()).toContain("everything__get-sum");
  });

  it("a header's secret is sealed at rest and never sent to a page", async () => {
    const boss = await signedIn("admin");
    const added = await addEverything(boss.cookie, {
      auth: "header",
      headerName: "X-Api-Key",
      headerValue: "very-secret-value",
    });
    expect(added.body.ok).toBe(true);
    const server = await storedServer();
    expect(server).toMatchObject({ authKind: "header", headerName: "X-Api-Key" });
    expect(JSON.stringify(server)).not.toContain("very-secret-value");
    const page = await openServersPage(boss.cookie);
    expect(JSON.stringify(page.body)).not.toContain("very-secret-value");
    expect(page.body.servers![0].auth).toBe("X-Api-Key");
    // The key from the environment opens it for the server's requests; another key cannot.
    expect(mcpServerHeaders(server)).toEqual({ "X-Api-Key": "very-secret-value" });
    process.env.TOOLS_SECRET_KEY = Buffer.alloc(32, 8).toString("base64");
    resetConfig();
    try {
      expect(() => mcpServerHeaders(server)).toThrow(/cannot be opened/);
    } finally {
      process.env.TOOLS_SECRET_KEY = ENV.TOOLS_SECRET_KEY;
      resetConfig();
    }
  });

  it("bad input gets a clear message and keeps what was typed; an unreachable server is kept with the reason", async () => {
    const boss = await signedIn("admin");
    const bad = await addEverything(boss.cookie, { url: "ftp://files.example.com", name: "My files" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.url).toMatch(/http:\/\/ or https:\/\//);
    expect(bad.body.values).toMatchObject({ name: "My files", url: "ftp://files.example.com" });
    const noRoles = await addEverything(boss.cookie, { roles: [] as unknown as string });
    expect(noRoles.body.errors!.roles).toBe("Choose at least one role that may use it.");

    // Nothing listens on port 9 (discard) on loopback: the server is kept, with why it can't be reached.
    const down = await addEverything(boss.cookie, { url: "http://127.0.0.1:9/mcp", name: "Down" });
    expect(down.body.notice).toMatch(/^“Down” was added, but could not be reached: /);
    // A server on an internal address is refused unless the operator allows it (OUTBOUND_ALLOW).
    delete process.env.OUTBOUND_ALLOW;
    resetConfig();
    try {
      const internal = await addEverything(boss.cookie, { name: "Internal" });
      expect(internal.body.notice).toMatch(
        /^“Internal” was added, but could not be reached: .*refused: 127\.0\.0\.1 is a/,
      );
    } finally {
      process.env.OUTBOUND_ALLOW = ENV.OUTBOUND_ALLOW;
      resetConfig();
    }
    const user = await signedIn();
    const chunks = await ask(user.cookie);
    // The reply goes on without those servers' tools.
    expect(replyText(chunks)).toBe("Done.");
    expect(offeredTools()).toContain("calculator");
  });
});
