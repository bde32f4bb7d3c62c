import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { MEMORY_TOOL_IDS } from "~/chat/memory.server";
import { conversations, mcpServers, messages } from "~/db/schema";
import { saveToolSwitch } from "~/data/preferences.server";
import { mcpToolSwitchId } from "~/data/mcp-servers.server";
import type { ChatToolGroup } from "~/conversation/chat-tools";
import { CHAT_TOOLS_OFF_MAX } from "~/settings/chat-limits";
import { APP_ORIGIN, appRequest } from "../support/app-env";
import { postServersPage, toolServerSuite } from "../support/tool-server-suite";
import { firstMessage, newMessage, postChat, readChunks, replyText } from "./chat-support";

/**
 * A chat's own choice of tools, from the composer's tools menu: what the menu
 * lists, that a tool switched off for a chat is not offered in it (and is in
 * another), that the choice is kept on the conversation, and that a request
 * can only take tools away, never add one the role or the user's own switches
 * leave out.
 */

const suite = toolServerSuite({
  LLM_MODELS: "test-model",
  OUTBOUND_ALLOW: "127.0.0.1",
  TOOLS_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
});
const { signedIn, offeredTools } = suite;
/** The offered tools a chat can switch off: memory's own tools are offered whenever memory is on. */
const switchableOffered = () => offeredTools().filter((name) => !(MEMORY_TOOL_IDS as readonly string[]).includes(name));

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<Response>;

/** Calls a route's loader or action in-process; a thrown Response is the answer too. */
async function call(handler: Handler, request: Request, params: Record<string, string> = {}) {
  let response: Response;
  try {
    response = await handler({ request, params, context: {} });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    response = thrown;
  }
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The Everything reference server, added by an admin for `roles`; its stored row. */
async function addEverything(roles: string[] = ["*"]) {
  const boss = await signedIn("admin");
  const form = { intent: "add-server", name: "Everything", url: suite.everything.url, auth: "none", roles };
  expect((await postServersPage(boss.cookie, form)).body.ok).toBe(true);
  const [row] = await (await getDb()).select().from(mcpServers);
  return row;
}

async function ask(cookie: string, body: object) {
  suite.model.enqueue({ type: "text", text: "Done." });
  const response = await postChat(body, { cookie });
  expect(response.status).toBe(200);
  expect(replyText(await readChunks(response))).toBe("Done.");
}

/** The menu's change to one tool of a stored chat: intent=tool on the chat page. */
async function switchTool(cookie: string, conversationId: string, tool: string, enabled: "on" | "off") {
  const { action } = await import("~/routes/nuvara.$conversationId");
  const request = appRequest(`/nuvara/${conversationId}`, {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "tool", tool, enabled }).toString(),
  });
  return call(action as Handler, request, { conversationId });
}

async function menuOf(cookie: string) {
  const { loader } = await import("~/routes/nuvara");
  const page = await call(loader as Handler, appRequest("/nuvara", { cookie }));
  return page.body.chatTools as ChatToolGroup[];
}

async function storedChoice(conversationId: string) {
  const [row] = await (
    await getDb()
  )
    .select({ toolsOff: conversations.toolsOff })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  return row?.toolsOff;
}

async function pageChoice(cookie: string, conversationId: string) {
  const { loader } = await import("~/routes/nuvara.$conversationId");
  const page = await call(loader as Handler, appRequest(`/nuvara/${conversationId}`, { cookie }), { conversationId });
  return (page.body.conversation as { toolsOff: string[] }).toolsOff;
}

describe("a chat's own choice of tools", () => {
  it("the menu lists the built-in tools and the servers' tools the user may use, less those they switched off", async () => {
    const server = await addEverything(["premium", "admin"]);
    const premium = await signedIn("premium");
    await saveToolSwitch(await getDb(), premium.account.uid, "convert_units", false);
    await saveToolSwitch(await getDb(), premium.account.uid, mcpToolSwitchId(server.id, "get-sum"), false);

    const menu = await menuOf(premium.cookie);
    expect(menu.map((group) => group.name)).toEqual(["Built-in", "Everything"]);
    expect(menu[0].tools).toEqual([
      { id: "calculator", title: "Calculator" },
      { id: "current_datetime", title: "Current date and time" },
    ]);
    const served = menu[1].tools;
    expect(served).toContainEqual({ id: mcpToolSwitchId(server.id, "echo"), title: "Echo Tool" });
    expect(served.map((tool) => tool.id)).not.toContain(mcpToolSwitchId(server.id, "get-sum"));

    // A role the server is not open to sees only the built-in group.
    const user = await signedIn();
    expect((await menuOf(user.cookie)).map((group) => group.name)).toEqual(["Built-in"]);
  });

  it("a tool switched off in one chat is not offered there, and is in another chat", async () => {
    const server = await addEverything();
    const echo = mcpToolSwitchId(server.id, "echo");
    const { cookie } = await signedIn();

    const narrowed = { ...firstMessage("Add these up"), toolsOff: ["calculator", echo] };
    await ask(cookie, narrowed);
    expect(offeredTools()).toContain("current_datetime");
    expect(offeredTools()).toContain("everything__get-sum");
    expect(offeredTools()).not.toContain("calculator");
    expect(offeredTools()).not.toContain("everything__echo");

    await ask(cookie, firstMessage("Another chat"));
    expect(offeredTools()).toEqual(expect.arrayContaining(["calculator", "everything__echo"]));
  });

  it("the choice is kept on the conversation: its next message, without it, is not offered those tools", async () => {
    const { cookie } = await signedIn();
    const first = { ...firstMessage("Hello"), toolsOff: ["current_datetime", "calculator", "calculator"] };
    await ask(cookie, first);
    expect(await storedChoice(first.conversationId)).toEqual(["calculator", "current_datetime"]);
    expect(await pageChoice(cookie, first.conversationId)).toEqual(["calculator", "current_datetime"]);

    const next = { conversationId: first.conversationId, message: newMessage("And now?"), model: "test-model" };
    await ask(cookie, next);
    expect(switchableOffered()).toEqual(["convert_units"]);

    // Changed from the menu: kept at once, and the next message follows it.
    expect((await switchTool(cookie, first.conversationId, "calculator", "on")).body).toEqual({
      ok: true,
      toolsOff: ["current_datetime"],
    });
    await switchTool(cookie, first.conversationId, "convert_units", "off");
    await switchTool(cookie, first.conversationId, "convert_units", "off");
    await switchTool(cookie, first.conversationId, "current_datetime", "on");
    expect(await pageChoice(cookie, first.conversationId)).toEqual(["convert_units"]);
    await ask(cookie, { ...next, message: newMessage("Once more") });
    expect(switchableOffered().sort()).toEqual(["calculator", "current_datetime"]);

    // Another user's conversation is not theirs to change.
    const other = await signedIn();
    expect((await switchTool(other.cookie, first.conversationId, "convert_units", "on")).status).toBe(404);
    expect(await storedChoice(first.conversationId)).toEqual(["convert_units"]);
  });

  it("a temporary chat keeps its choice too", async () => {
    const { cookie } = await signedIn();
    const first = { ...firstMessage("Just between us"), temporary: true, toolsOff: ["calculator"] };
    await ask(cookie, first);
    expect(await storedChoice(first.conversationId)).toEqual(["calculator"]);
    await ask(cookie, { conversationId: first.conversationId, message: newMessage("Next"), model: "test-model" });
    expect(offeredTools()).not.toContain("calculator");
  });

  it("a request cannot add a tool the role may not use, nor one the user switched off, nor one the chat keeps off", async () => {
    const server = await addEverything(["premium"]);
    const { account, cookie } = await signedIn();
    await saveToolSwitch(await getDb(), account.uid, "calculator", false);

    // An empty choice, and one naming the server's tools, add nothing.
    await ask(cookie, { ...firstMessage("Everything please"), toolsOff: [] });
    expect(offeredTools()).not.toContain("calculator");
    expect(offeredTools().filter((name) => name.startsWith("everything__"))).toEqual([]);
    const chat = { ...firstMessage("Still nothing"), toolsOff: [mcpToolSwitchId(server.id, "get-sum")] };
    await ask(cookie, chat);
    expect(offeredTools().filter((name) => name.startsWith("everything__"))).toEqual([]);

    // What the chat keeps off stays off for a request that was sent before it changed (another tab).
    await switchTool(cookie, chat.conversationId, "convert_units", "off");
    await ask(cookie, {
      conversationId: chat.conversationId,
      message: newMessage("Stale"),
      model: "test-model",
      toolsOff: [],
    });
    expect(offeredTools()).not.toContain("convert_units");
    expect(offeredTools()).not.toContain("calculator");
  });

  it("bad input gets a 400 with a clear message, and nothing is stored or changed", async () => {
    const { cookie } = await signedIn();
    const kept = { ...firstMessage("Keep this"), toolsOff: ["calculator"] };
    await ask(cookie, kept);
    const requestsBefore = suite.model.requests.length;

    const tooMany = Array.from({ length: CHAT_TOOLS_OFF_MAX + 1 }, (_, i) => `mcp:${randomUUID()}/tool-${i}`);
    const cases: Array<[unknown, RegExp]> = [
      ["calculator", /^The tools switched off must be a list of tool ids\.( \(toolsOff\))?$/],
      [["no_such_tool"], /^“no_such_tool” is not a tool id/],
      [["mcp:not-a-server/echo"], /^“mcp:not-a-server\/echo” is not a tool id/],
      [[42], /^A tool id must be text\./],
      [tooMany, new RegExp(`^At most ${CHAT_TOOLS_OFF_MAX} tools can be switched off for a chat\\.`)],
    ];
    for (const [toolsOff, message] of cases) {
      const fresh = { ...firstMessage("Refused"), toolsOff };
      const refused = await postChat(fresh, { cookie });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(message);
      expect(await storedChoice(fresh.conversationId)).toBeUndefined();

      const next = { conversationId: kept.conversationId, message: newMessage("Refused too"), model: "test-model" };
      const again = await postChat({ ...next, toolsOff }, { cookie });
      expect(again.status).toBe(400);
    }
    for (const tool of ["no_such_tool", "mcp:not-a-server/echo", ""]) {
      const viaMenu = await switchTool(cookie, kept.conversationId, tool, "off");
      expect(viaMenu.status).toBe(400);
      expect(viaMenu.body.error).toMatch(/is not a tool id/);
    }
    expect((await switchTool(cookie, kept.conversationId, "convert_units", "maybe" as "on")).status).toBe(400);
    expect(suite.model.requests.length).toBe(requestsBefore);
    expect(await storedChoice(kept.conversationId)).toEqual(["calculator"]);
    const rows = await (await getDb()).select().from(messages).where(eq(messages.conversationId, kept.conversationId));
    expect(rows).toHaveLength(2);

    // A chat whose list is full takes no more from the menu, and keeps its list.
    const full = tooMany.slice(0, CHAT_TOOLS_OFF_MAX);
    await (
      await getDb()
    )
      .update(conversations)
      .set({ toolsOff: full })
      .where(eq(conversations.id, kept.conversationId));
    const refused = await switchTool(cookie, kept.conversationId, "calculator", "off");
    expect(refused).toEqual({
      status: 400,
      body: { error: `At most ${CHAT_TOOLS_OFF_MAX} tools can be switched off for a chat.` },
    });
    expect(await storedChoice(kept.conversationId)).toEqual(full);
  });
});
