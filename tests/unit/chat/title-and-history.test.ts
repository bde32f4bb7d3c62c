import { describe, expect, it } from "vitest";
import { HistoryError, historyForReply, trimHistory } from "~/chat/history";
import type { ChatMessage } from "~/chat/message-types";
import { titleFromExchange } from "~/chat/title";

const user = (id: string, text: string): ChatMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const reply = (id: string, text: string): ChatMessage => ({ id, role: "assistant", parts: [{ type: "text", text }] });

describe("titleFromExchange", () => {
  it("uses the first meaningful line of the first message, without Markdown", () => {
    expect(titleFromExchange("What is the **capital** of France?")).toBe("What is the capital of France?");
    expect(titleFromExchange("\n\n# Help me plan\nmore details")).toBe("Help me plan");
    expect(titleFromExchange("- [a link](https://x.y) to read")).toBe("a link to read");
    expect(titleFromExchange("```\ncode only\n```\nExplain this")).toBe("Explain this");
    expect(titleFromExchange("Fix this code:\n\nconst x = 1")).toBe("Fix this code");
  });

  it("cuts long text at a word near 60 characters", () => {
    const title = titleFromExchange("Please explain in detail how the quarterly revenue numbers were calculated for the board");
    expect(title).toBe("Please explain in detail how the quarterly revenue numbers…");
    expect(title.length).toBeLessThanOrEqual(61);
  });

  it("falls back to the reply, then to New chat", () => {
    expect(titleFromExchange("???", "Greetings from the model")).toBe("Greetings from the model");
    expect(titleFromExchange("  ", "")).toBe("New chat");
  });
});

describe("historyForReply", () => {
  const stored = [user("u1", "first"), reply("a1", "answer one"), user("u2", "second"), reply("a2", "answer two")];

  it("a new message is appended", () => {
    const { kind, history } = historyForReply(stored, { id: "u3", text: "third" });
    expect(kind).toBe("submit");
    expect(history.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2", "u3"]);
  });

  it("the last message with its text is answered again, with new text it is an edit", () => {
    const again = historyForReply(stored, { id: "u2", text: "second" });
    expect(again.kind).toBe("regenerate");
    expect(again.history.map((m) => m.id)).toEqual(["u1", "a1", "u2"]);
    const edit = historyForReply(stored, { id: "u2", text: "second, better" });
    expect(edit.kind).toBe("edit");
    expect(edit.history.at(-1)).toEqual(user("u2", "second, better"));
    expect(edit.history).toHaveLength(3);
  });

  it("an earlier message cannot be changed or answered again", () => {
    expect(() => historyForReply(stored, { id: "u1", text: "first" })).toThrow(HistoryError);
    expect(() => historyForReply(stored, { id: "a1", text: "answer one" })).toThrow(HistoryError);
  });
});

describe("trimHistory", () => {
  it("keeps the newest messages within the budget, starting at a user's message", () => {
    const long = "x".repeat(100);
    const history = [user("u1", long), reply("a1", long), user("u2", long), reply("a2", long), user("u3", "now")];
    const kept = trimHistory(history, 300);
    expect(kept.map((m) => m.id)).toEqual(["u2", "a2", "u3"]);
  });

  it("always keeps the message being answered", () => {
    expect(trimHistory([user("u1", "y".repeat(1_000))], 10).map((m) => m.id)).toEqual(["u1"]);
  });
});
