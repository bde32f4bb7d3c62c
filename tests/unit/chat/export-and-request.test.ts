import { describe, expect, it } from "vitest";
import { attachmentHeader, conversationToMarkdown, exportFileName } from "~/chat/markdown-export";
import type { ChatMessage } from "~/conversation/message-types";
import { chatRequestBody } from "~/components/chat/chat-sessions";

const messages: ChatMessage[] = [
  {
    id: "u1",
    role: "user",
    parts: [{ type: "text", text: "What is 2^10?" }],
    metadata: { createdAt: "2025-03-15T10:00:00.000Z" },
  },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-calculator",
        toolCallId: "c1",
        state: "output-available",
        input: { expression: "2^10" },
        output: { result: "1024" },
      },
      { type: "text", text: "It is **1024**." },
    ],
    metadata: { model: "llama3.2", status: "stopped", createdAt: "2025-03-15T10:00:02.000Z" },
  },
];

describe("export as Markdown", () => {
  it("writes the title, each message with who and when, tool steps and stopped replies", () => {
    const markdown = conversationToMarkdown(
      { title: "Powers of two", createdAt: new Date("2025-03-15T09:59:00Z"), messages },
      new Date("2025-03-16T08:00:00Z"),
    );
    expect(markdown).toBe(
      [
        "# Powers of two",
        "",
        "_Started 2025-03-15 09:59 UTC; exported from Nuvara² 2025-03-16 08:00 UTC._",
        "",
        "---",
        "",
        "**You** · 2025-03-15 10:00 UTC",
        "",
        "What is 2^10?",
        "",
        "---",
        "",
        "**Assistant (llama3.2)** · 2025-03-15 10:00 UTC",
        "",
        '> Used calculator: `{"expression":"2^10"}` → `{"result":"1024"}`',
        "",
        "It is **1024**.",
        "",
        "_(stopped before the end)_",
        "",
      ].join("\n"),
    );
  });

  it("names the file after the title, safely", () => {
    expect(exportFileName("Plans: Lisbon / Porto?")).toBe("plans-lisbon-porto.md");
    expect(exportFileName("../../etc/passwd")).toBe("etcpasswd.md");
    expect(exportFileName(null)).toBe("conversation.md");
    expect(exportFileName("日本")).toBe("日本.md");
    expect(attachmentHeader("日本.md")).toBe(
      `attachment; filename="conversation.md"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.md`,
    );
    expect(attachmentHeader("plans.md")).toBe(`attachment; filename="plans.md"; filename*=UTF-8''plans.md`);
  });
});

describe("chatRequestBody: what the browser sends", () => {
  it("sends only the last message the user wrote, with the conversation's settings", () => {
    const body = chatRequestBody(
      "c-1",
      messages,
      { model: "llama3.2", create: false, toolsOff: ["calculator"] },
      "Europe/Oslo",
    );
    expect(body).toEqual({
      conversationId: "c-1",
      // A first message follows nothing.
      parentId: null,
      create: false,
      message: { id: "u1", role: "user", parts: [{ type: "text", text: "What is 2^10?" }] },
      model: "llama3.2",
      // The chat's tools switched off in the menu, every time (the server keeps them with the exchange).
      toolsOff: ["calculator"],
      timeZone: "Europe/Oslo",
    });
  });

  it("names the stored reply shown before the message as its parent; after an unconfirmed reply, none (ADR 069)", () => {
    const next: ChatMessage = { id: "u2", role: "user", parts: [{ type: "text", text: "And 2^11?" }] };
    expect(
      chatRequestBody("c-1", [...messages, next], { model: "m", create: false, toolsOff: [] }, undefined).parentId,
    ).toBe("a1");
    const unconfirmed: ChatMessage = { ...messages[1], id: "a-local", metadata: { status: "stopped" } };
    expect(
      chatRequestBody("c-1", [messages[0], unconfirmed, next], { model: "m", create: false, toolsOff: [] }, undefined)
        .parentId,
    ).toBeUndefined();
  });
});
