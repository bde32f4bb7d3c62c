import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { messages, toolElicitations } from "~/db/schema";
import { answerElicitation } from "~/data/tool-elicitations.server";
import type { ToolElicitationView } from "~/conversation/tool-elicitation";
import { closeServerSessions } from "~/tools/server-connection.server";
import { APP_ORIGIN, appRequest } from "../support/app-env";
import { toolServerSuite } from "../support/tool-server-suite";
import { firstMessage, postChat, readChunks, readRun, readUntil, replyText, stopChat } from "./chat-support";

/**
 * A server asking the user for input while its tool runs (docs/decisions/095),
 * against the reference server's `trigger-elicitation-request`: the reply
 * shows the form and waits; the owner's answer (checked against the form,
 * from any request or instance) reaches the server, which tells the model
 * what the user said. Decline, no answer in time, and Stop each end the
 * request without an answer; nobody else can answer it.
 */

const ENV = {
  LLM_MODELS: "test-model",
  OUTBOUND_ALLOW: "127.0.0.1",
  LLM_TIMEOUT_MS: "1000",
  TOOL_APPROVAL_TIMEOUT_SECONDS: "60",
};
const suite = toolServerSuite(ENV);
const { signedIn, toolResultsSent } = suite;

// After the suite's own (no server left): the Everything reference server, as an admin adds it.
beforeEach(async () => {
  // The tool would ask for approval first (its hints say it may change things): here only its form is tested.
  await suite.addEverything({ "trigger-elicitation-request": "auto" });
});

async function answer(cookie: string, body: Record<string, unknown>) {
  const { action } = await import("~/routes/api.tool-elicitations");
  const request = appRequest("/api/tool-elicitations", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await action({ request, params: {}, context: {} });
  return {
    status: response.status,
    body: (await response.json()) as { status?: string; error?: string; fieldErrors?: Record<string, string> },
  };
}

function requests(chunks: UIMessageChunk[]): ToolElicitationView[] {
  return chunks.flatMap((chunk) => (chunk.type === "data-elicitation" ? [chunk.data as ToolElicitationView] : []));
}

const pending = (chunks: UIMessageChunk[]) => requests(chunks).find((view) => view.status === "pending");

const ASK = {
  type: "tool-calls" as const,
  calls: [{ name: "everything__trigger-elicitation-request", arguments: {} }],
};

async function stored(id: string) {
  const [row] = await (await getDb()).select().from(toolElicitations).where(eq(toolElicitations.id, id));
  return row;
}

describe("a tool server asking the user for input", () => {
  it("the reply shows the server's form; a wrong answer is refused field by field, a right one reaches the server", async () => {
    const { account, cookie } = await signedIn();
    suite.model.enqueue(ASK, { type: "text", text: "Thanks, noted." });
    const body = firstMessage("Ask me for my details");
    const stream = await readUntil(await postChat(body, { cookie }), (chunks) => pending(chunks) !== undefined);
    const form = pending(stream.chunks)!;
    expect(form).toMatchObject({ server: "Everything", message: "Please provide inputs for the following fields:" });
    expect(form.fields.find((field) => field.name === "name")).toMatchObject({
      label: "String",
      description: "Your full, legal name",
      kind: "text",
      required: true,
    });
    expect(form.fields.find((field) => field.name === "integer")).toMatchObject({
      kind: "integer",
      minimum: 1,
      maximum: 100,
      default: 42,
    });
    expect(form.fields.find((field) => field.name === "titledSingleSelectEnum")?.options).toEqual([
      { value: "hero-1", label: "Superman" },
      { value: "hero-2", label: "Green Lantern" },
      { value: "hero-3", label: "Wonder Woman" },
    ]);
    expect(form.fields.find((field) => field.name === "legacyTitledEnum")?.options?.[1]).toEqual({
      value: "pet-2",
      label: "Dogs",
    });
    expect(await stored(form.elicitationId)).toMatchObject({ uid: account.uid, status: "pending" });
    // Nothing was sent back to the model while it waits.
    expect(toolResultsSent()).toBe("[]");

    const wrong = await answer(cookie, {
      elicitationId: form.elicitationId,
      action: "accept",
      content: { name: "", integer: "500", email: "not an address", titledSingleSelectEnum: "hero-9" },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fieldErrors).toEqual({
      name: "This is required.",
      integer: "Enter 100 or less.",
      email: "Enter an email address, like name@example.com.",
      titledSingleSelectEnum: "Choose from the list.",
    });
    expect((await stored(form.elicitationId)).status).toBe("pending");

    const right = await answer(cookie, {
      elicitationId: form.elicitationId,
      action: "accept",
      content: { name: "Ada Lovelace", check: "on", integer: "7", unknown: "left out" },
    });
    expect(right).toEqual({ status: 200, body: { status: "accepted" } });
    const chunks = await stream.rest();
    expect(requests(chunks).at(-1)).toMatchObject({ elicitationId: form.elicitationId, status: "accepted" });
    expect(replyText(chunks)).toBe("Thanks, noted.");
    const sent = toolResultsSent();
    expect(sent).toContain("User provided the requested information");
    expect(sent).toContain("- Name: Ada Lovelace");
    expect(sent).toContain("- Agreed to terms: true");
    expect(sent).toContain("- Favorite Integer: 7");
    expect(sent).not.toContain("left out");
    // The answer was handed over: it is not kept.
    expect(await stored(form.elicitationId)).toMatchObject({ status: "accepted", content: null });
    // A second answer is refused: the first one counted.
    expect((await answer(cookie, { elicitationId: form.elicitationId, action: "decline" })).status).toBe(409);

    // The stored reply shows what became of the request, and holds the form but not the answer.
    const rows = await (
      await getDb()
    )
      .select({ parts: messages.parts })
      .from(messages)
      .where(eq(messages.conversationId, body.conversationId));
    const parts = rows.flatMap((row) => row.parts as Array<{ type: string; data?: ToolElicitationView }>);
    const kept = parts.filter((part) => part.type === "data-elicitation");
    expect(kept.map((part) => part.data?.status)).toEqual(["accepted"]);
    expect(JSON.stringify(parts)).not.toContain('Ada Lovelace"');
  });

  it("declined, the server hears the user declined and the reply goes on", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(ASK, { type: "text", text: "Understood." });
    const stream = await readUntil(await postChat(firstMessage("Ask me"), { cookie }), (c) => pending(c) !== undefined);
    const form = pending(stream.chunks)!;
    expect(await answer(cookie, { elicitationId: form.elicitationId, action: "decline" })).toEqual({
      status: 200,
      body: { status: "declined" },
    });
    const chunks = await stream.rest();
    expect(requests(chunks).at(-1)?.status).toBe("declined");
    expect(replyText(chunks)).toBe("Understood.");
    expect(toolResultsSent()).toContain("User declined to provide the requested information");
  });

  it("a waiting request is part of the run: a reload reads the form, and an answer taken on another instance is heard", async () => {
    const { account, cookie } = await signedIn();
    suite.model.enqueue(ASK, { type: "text", text: "Got it." });
    const first = await readUntil(
      await postChat(firstMessage("Ask from afar"), { cookie }),
      (c) => c.some((chunk) => chunk.type === "data-run") && pending(c) !== undefined,
    );
    const runId = (first.chunks.find((chunk) => chunk.type === "data-run") as { data: { runId: string } }).data.runId;
    const form = pending(first.chunks)!;
    const reload = await readUntil(await readRun(runId, { cookie }), (c) => pending(c) !== undefined);
    expect(pending(reload.chunks)?.elicitationId).toBe(form.elicitationId);

    // Answered straight in the database, as another instance's endpoint would: no wake-up here.
    await answerElicitation(await getDb(), {
      id: form.elicitationId,
      uid: account.uid,
      status: "accepted",
      content: { name: "Grace Hopper" },
    });
    expect(replyText(await first.rest())).toBe("Got it.");
    expect(requests(await reload.rest()).at(-1)?.status).toBe("accepted");
    expect(toolResultsSent()).toContain("- Name: Grace Hopper");
  });

  it("another account cannot answer it, and a malformed answer is refused", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    suite.model.enqueue(ASK, { type: "text", text: "Done." });
    const stream = await readUntil(
      await postChat(firstMessage("Ask me"), { cookie: owner.cookie }),
      (c) => pending(c) !== undefined,
    );
    const form = pending(stream.chunks)!;
    const theirs = { elicitationId: form.elicitationId, action: "accept", content: { name: "Mallory" } };
    expect((await answer(stranger.cookie, theirs)).status).toBe(409);
    expect((await answer(owner.cookie, { elicitationId: randomUUID(), action: "decline" })).status).toBe(409);
    expect((await answer(owner.cookie, { elicitationId: form.elicitationId, action: "maybe" })).status).toBe(400);
    expect((await answer(owner.cookie, { elicitationId: "x", action: "decline" })).status).toBe(400);
    expect((await stored(form.elicitationId)).status).toBe("pending");
    await answer(owner.cookie, { elicitationId: form.elicitationId, action: "decline" });
    await stream.rest();
    expect(toolResultsSent()).not.toContain("Mallory");
  });

  it("Stop while it waits cancels the request and keeps the reply as stopped", async () => {
    const { cookie } = await signedIn();
    suite.model.enqueue(ASK, { type: "text", text: "Unused." });
    const body = firstMessage("Ask and stop");
    const stream = await readUntil(await postChat(body, { cookie }), (c) => pending(c) !== undefined);
    const form = pending(stream.chunks)!;
    expect((await stopChat(body.message.id, { cookie })).status).toBe(200);
    const chunks = await stream.rest();
    expect(chunks.find((chunk) => chunk.type === "data-saved")).toMatchObject({ data: { status: "stopped" } });
    expect((await stored(form.elicitationId)).status).toBe("cancelled");
  });

  it("no answer in time cancels the request; the server hears it and the model goes on", async () => {
    process.env.TOOL_APPROVAL_TIMEOUT_SECONDS = "1";
    resetConfig();
    try {
      const { cookie } = await signedIn();
      suite.model.enqueue(ASK, { type: "text", text: "Nobody answered." });
      const chunks = await readChunks(await postChat(firstMessage("Ask late"), { cookie }));
      const form = requests(chunks).at(-1)!;
      expect(form.status).toBe("expired");
      expect(replyText(chunks)).toBe("Nobody answered.");
      expect(toolResultsSent()).toContain("User cancelled the elicitation dialog");
      expect((await stored(form.elicitationId)).status).toBe("expired");
    } finally {
      process.env.TOOL_APPROVAL_TIMEOUT_SECONDS = ENV.TOOL_APPROVAL_TIMEOUT_SECONDS;
      resetConfig();
    }
  });

  it("the call's own deadline does not run while the user is answering", async () => {
    process.env.MCP_CALL_TIMEOUT_MS = "1000";
    resetConfig();
    await closeServerSessions();
    try {
      const { cookie } = await signedIn();
      suite.model.enqueue(ASK, { type: "text", text: "Worth the wait." });
      const stream = await readUntil(
        await postChat(firstMessage("Take your time"), { cookie }),
        (c) => pending(c) !== undefined,
      );
      const form = pending(stream.chunks)!;
      // The user takes longer than a call may: twice its deadline.
      const shownAt = Date.now();
      await expect.poll(() => Date.now() - shownAt, { timeout: 10_000, interval: 200 }).toBeGreaterThan(2_000);
      await answer(cookie, { elicitationId: form.elicitationId, action: "accept", content: { name: "Patient" } });
      const chunks = await stream.rest();
      expect(replyText(chunks)).toBe("Worth the wait.");
      expect(toolResultsSent()).toContain("- Name: Patient");
    } finally {
      delete process.env.MCP_CALL_TIMEOUT_MS;
      resetConfig();
    }
  });
});
