import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import webPush from "web-push";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { messages, toolCalls } from "~/db/schema";
import { setMcpToolPolicy } from "~/data/mcp-servers.server";
import { decideToolCall } from "~/data/tool-calls.server";
import type { ToolApprovalView, ToolProgressView } from "~/conversation/tool-approval";
import { closeServerSessions } from "~/tools/server-connection.server";
import { APP_ORIGIN, appRequest } from "../support/app-env";
import { startPushService, type PushService } from "../support/push-service";
import { toolServerSuite } from "../support/tool-server-suite";
import {
  firstMessage,
  newMessage,
  postChat,
  readChunks,
  readRun,
  readUntil,
  replyText,
  stopChat,
} from "./chat-support";

/**
 * Approval before a server's tool acts (docs/decisions/091), against the
 * reference server: the reply pauses on an approval card, the owner's
 * decision (from this request or any other) lets the call run or tells the
 * model it was denied, "Allow for this chat" stops the asking, and no answer
 * in time or a Stop denies it. Every call is recorded.
 */

const vapid = webPush.generateVAPIDKeys();
const ENV = {
  LLM_MODELS: "test-model",
  OUTBOUND_ALLOW: "127.0.0.1",
  LLM_TIMEOUT_MS: "1000",
  TOOL_APPROVAL_TIMEOUT_SECONDS: "60",
  // A user with a device and no tab in view is told a call waits (docs/decisions/101).
  VAPID_PUBLIC_KEY: vapid.publicKey,
  VAPID_PRIVATE_KEY: vapid.privateKey,
  VAPID_SUBJECT: "mailto:ops@nuvara.test",
};
const suite = toolServerSuite(ENV);
const { signedIn, toolResultsSent } = suite;

let serverId: string;

// After the suite's own (no server left): the Everything reference server, as an admin adds it.
beforeEach(async () => {
  // Echo only reads (its hints say so) and would run without asking: the admin wants to be asked.
  serverId = await suite.addEverything({ echo: "ask" });
});

let push: PushService;
beforeAll(async () => {
  push = await startPushService();
});
afterAll(() => push.close());

/** What the dashboard's "Notify me on this device" posts once the browser has subscribed. */
async function subscribe(cookie: string, device: string) {
  const { action } = await import("~/routes/api.notifications");
  const request = appRequest("/api/notifications", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify({ action: "subscribe", subscription: push.device(device).subscription }),
  });
  const response = await action({ request, params: {}, context: {} });
  expect(response.status).toBe(200);
}

async function decide(cookie: string, approvalId: string, decision: string) {
  const { action } = await import("~/routes/api.tool-approvals");
  const request = appRequest("/api/tool-approvals", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify({ approvalId, decision }),
  });
  const response = await action({ request, params: {}, context: {} });
  return { status: response.status, body: (await response.json()) as { status?: string; error?: string } };
}

function approvals(chunks: UIMessageChunk[]): ToolApprovalView[] {
  return chunks.flatMap((chunk) => (chunk.type === "data-approval" ? [chunk.data as ToolApprovalView] : []));
}

const pending = (chunks: UIMessageChunk[]) => approvals(chunks).find((view) => view.status === "pending");

function echoCall(message: string) {
  return { type: "tool-calls" as const, calls: [{ name: "everything__echo", arguments: { message } }] };
}

async function recorded(approvalId: string) {
  const [row] = await (await getDb()).select().from(toolCalls).where(eq(toolCalls.id, approvalId));
  return row;
}

describe("approving a server's tool", () => {
  it("the reply waits on a card showing the server, tool and arguments; approved, the call runs and the reply goes on", async () => {
    const { account, cookie } = await signedIn();
    suite.model.enqueue(echoCall("ship it"), { type: "text", text: "Echoed." });
    const body = firstMessage("Echo ship it");
    const stream = await readUntil(await postChat(body, { cookie }), (chunks) => pending(chunks) !== undefined);
    const card = pending(stream.chunks)!;
    expect(card).toMatchObject({ server: "Everything", tool: "Echo Tool", arguments: { message: "ship it" } });
    // Nothing ran while it waits, and the model was not asked again.
    expect(toolResultsSent()).toBe("[]");
    expect(await recorded(card.approvalId)).toMatchObject({ status: "pending", uid: account.uid, tool: "echo" });

    expect(await decide(cookie, card.approvalId, "approve")).toEqual({ status: 200, body: { status: "approved" } });
    const chunks = await stream.rest();
    expect(approvals(chunks).at(-1)).toMatchObject({ approvalId: card.approvalId, status: "approved" });
    expect(replyText(chunks)).toBe("Echoed.");
    expect(toolResultsSent()).toContain("Echo: ship it");
    expect(await recorded(card.approvalId)).toMatchObject({
      status: "approved",
      decidedBy: account.email,
      outcome: "ok",
    });
    // A second answer is refused: the first one decided.
    expect((await decide(cookie, card.approvalId, "deny")).status).toBe(409);
  });

  it("a user away from every tab is told on their device that a call waits, with the chat's title and where to decide", async () => {
    const { cookie } = await signedIn();
    await subscribe(cookie, "away-phone");
    suite.model.enqueue(echoCall("later"), { type: "text", text: "Echoed later." });
    const body = firstMessage("Echo it when I approve");
    const stream = await readUntil(await postChat(body, { cookie }), (chunks) => pending(chunks) !== undefined);
    await expect.poll(() => push.messages("away-phone")).toHaveLength(1);
    expect(push.messages("away-phone")).toEqual([
      {
        title: "Echo it when I approve",
        body: "A tool is waiting for your approval.",
        url: `/nuvara/${body.conversationId}`,
        tag: expect.stringMatching(/^reply-/),
      },
    ]);
    await decide(cookie, pending(stream.chunks)!.approvalId, "approve");
    expect(replyText(await stream.rest())).toBe("Echoed later.");
  });

  it("denied, the call does not run: the model is told and answers without it", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(echoCall("secret"), { type: "text", text: "I won't echo it then." });
    const stream = await readUntil(
      await postChat(firstMessage("Echo it"), { cookie }),
      (c) => pending(c) !== undefined,
    );
    const card = pending(stream.chunks)!;
    await decide(cookie, card.approvalId, "deny");
    const chunks = await stream.rest();
    expect(approvals(chunks).at(-1)?.status).toBe("denied");
    expect(replyText(chunks)).toBe("I won't echo it then.");
    expect(toolResultsSent()).toContain("The user denied this call");
    expect(toolResultsSent()).not.toContain("Echo: secret");
    expect((await recorded(card.approvalId)).outcome).toBeNull();
  });

  it("allowed for this chat, the tool runs without asking for the rest of the chat, and only there", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(echoCall("one"), { type: "text", text: "First." });
    const body = firstMessage("Echo one");
    const stream = await readUntil(await postChat(body, { cookie }), (c) => pending(c) !== undefined);
    await decide(cookie, pending(stream.chunks)!.approvalId, "allow-chat");
    expect(approvals(await stream.rest()).at(-1)).toMatchObject({ status: "approved", allowedForChat: true });

    suite.model.enqueue(echoCall("two"), { type: "text", text: "Second." });
    const next = await readChunks(
      await postChat({ ...body, create: false, message: newMessage("Echo two") }, { cookie }),
    );
    expect(approvals(next)).toEqual([]);
    expect(replyText(next)).toBe("Second.");
    expect(toolResultsSent()).toContain("Echo: two");
    const rows = await (
      await getDb()
    )
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.conversationId, body.conversationId));
    expect(rows.map((row) => row.status).sort()).toEqual(["allowed", "approved"]);

    // Another chat asks again.
    suite.model.enqueue(echoCall("three"), { type: "text", text: "Third." });
    const other = await readUntil(
      await postChat(firstMessage("Echo three"), { cookie }),
      (c) => pending(c) !== undefined,
    );
    await decide(cookie, pending(other.chunks)!.approvalId, "deny");
    await other.rest();
  });

  it("a paused reply is a run: a reload reads the card, and a decision taken elsewhere (another instance) is heard", async () => {
    const { account, cookie } = await signedIn();
    suite.model.enqueue(echoCall("from afar"), { type: "text", text: "Done." });
    const first = await readUntil(
      await postChat(firstMessage("Echo from afar"), { cookie }),
      (c) => c.some((chunk) => chunk.type === "data-run") && pending(c) !== undefined,
    );
    const runId = (first.chunks.find((chunk) => chunk.type === "data-run") as { data: { runId: string } }).data.runId;
    const card = pending(first.chunks)!;
    // The page reloaded: it reads the run from its start, card included.
    const reload = await readUntil(await readRun(runId, { cookie }), (c) => pending(c) !== undefined);
    expect(pending(reload.chunks)?.approvalId).toBe(card.approvalId);

    // Decided straight in the database, as another instance's endpoint would: no wake-up here.
    await decideToolCall(await getDb(), {
      id: card.approvalId,
      uid: account.uid,
      decision: "approve",
      by: account.email,
    });
    expect(replyText(await first.rest())).toBe("Done.");
    expect(approvals(await reload.rest()).at(-1)?.status).toBe("approved");
  });

  it("another account cannot answer the card", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    suite.model.enqueue(echoCall("mine"), { type: "text", text: "Done." });
    const stream = await readUntil(
      await postChat(firstMessage("Echo mine"), { cookie: owner.cookie }),
      (c) => pending(c) !== undefined,
    );
    const card = pending(stream.chunks)!;
    expect((await decide(stranger.cookie, card.approvalId, "approve")).status).toBe(409);
    expect((await decide(owner.cookie, randomUUID(), "approve")).status).toBe(409);
    expect((await decide(owner.cookie, card.approvalId, "maybe")).status).toBe(400);
    await decide(owner.cookie, card.approvalId, "deny");
    await stream.rest();
  });

  it("Stop while waiting denies the call and keeps the reply as stopped", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(echoCall("never"), { type: "text", text: "Unused." });
    const body = firstMessage("Echo never");
    const stream = await readUntil(await postChat(body, { cookie }), (c) => pending(c) !== undefined);
    const card = pending(stream.chunks)!;
    expect((await stopChat(body.message.id, { cookie })).status).toBe(200);
    const chunks = await stream.rest();
    expect(chunks.find((chunk) => chunk.type === "data-saved")).toMatchObject({ data: { status: "stopped" } });
    expect((await recorded(card.approvalId)).status).toBe("cancelled");
    expect(toolResultsSent()).not.toContain("Echo: never");
  });

  it("no answer in time denies the call; the model goes on without it", async () => {
    process.env.TOOL_APPROVAL_TIMEOUT_SECONDS = "1";
    resetConfig();
    try {
      const { cookie } = await signedIn();
      suite.model.enqueue(echoCall("late"), { type: "text", text: "Nobody answered." });
      const chunks = await readChunks(await postChat(firstMessage("Echo late"), { cookie }));
      const card = approvals(chunks).at(-1)!;
      expect(card.status).toBe("expired");
      expect(replyText(chunks)).toBe("Nobody answered.");
      expect(toolResultsSent()).toContain("No one approved this call in time");
      expect((await recorded(card.approvalId)).status).toBe("expired");
    } finally {
      process.env.TOOL_APPROVAL_TIMEOUT_SECONDS = ENV.TOOL_APPROVAL_TIMEOUT_SECONDS;
      resetConfig();
    }
  });

  it("a tool that runs without asking is recorded too; an admin's 'ask once' asks once per chat", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(
      { type: "tool-calls", calls: [{ name: "everything__get-sum", arguments: { a: 2, b: 3 } }] },
      { type: "text", text: "5." },
    );
    const chunks = await readChunks(await postChat(firstMessage("Add"), { cookie }));
    expect(approvals(chunks)).toEqual([]);
    const [auto] = await (await getDb()).select().from(toolCalls).where(eq(toolCalls.tool, "get-sum"));
    expect(auto).toMatchObject({ status: "auto", policy: "auto", outcome: "ok", arguments: { a: 2, b: 3 } });

    await setMcpToolPolicy(await getDb(), serverId, "echo", "once");
    await closeServerSessions();
    suite.model.enqueue(echoCall("a"), { type: "text", text: "A." });
    const body = firstMessage("Echo a");
    const stream = await readUntil(await postChat(body, { cookie }), (c) => pending(c) !== undefined);
    await decide(cookie, pending(stream.chunks)!.approvalId, "approve");
    expect(approvals(await stream.rest()).at(-1)).toMatchObject({ status: "approved", allowedForChat: true });
    suite.model.enqueue(echoCall("b"), { type: "text", text: "B." });
    const again = await readChunks(
      await postChat({ ...body, create: false, message: newMessage("Echo b") }, { cookie }),
    );
    expect(approvals(again)).toEqual([]);
    expect(replyText(again)).toBe("B.");
  });
});

describe("a server's tool that reports its progress", () => {
  it("shows how far it has got in the reply while it runs; the stored reply keeps only the result", async () => {
    await setMcpToolPolicy(await getDb(), serverId, "trigger-long-running-operation", "auto");
    await closeServerSessions();
    const { cookie } = await signedIn();
    suite.model.enqueue(
      {
        type: "tool-calls",
        calls: [{ name: "everything__trigger-long-running-operation", arguments: { duration: 3, steps: 3 } }],
      },
      { type: "text", text: "Finished." },
    );
    const body = firstMessage("Run the long one");
    const chunks = await readChunks(await postChat(body, { cookie }));
    const reports = chunks.flatMap((chunk) =>
      chunk.type === "data-tool-progress" ? [chunk.data as ToolProgressView] : [],
    );
    // One report per step (a second apart, far more than the least time between two shown), for the call it belongs to.
    expect(reports.map(({ progress, total }) => ({ progress, total }))).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    const call = chunks.find((chunk) => chunk.type === "tool-input-available");
    expect(new Set(reports.map((report) => report.toolCallId))).toEqual(
      new Set([(call as { toolCallId: string }).toolCallId]),
    );
    expect(replyText(chunks)).toBe("Finished.");

    const stored = await (
      await getDb()
    )
      .select({ parts: messages.parts })
      .from(messages)
      .where(eq(messages.conversationId, body.conversationId));
    const types = stored.flatMap((row) => (row.parts as Array<{ type: string }>).map((part) => part.type));
    expect(types).toContain("tool-everything__trigger-long-running-operation");
    expect(types).not.toContain("data-tool-progress");
  });
});
