import { describe, expect, it } from "vitest";
import { HistoryError, historyForReply, ParentError, trimHistory } from "~/conversation/history";
import type { ChatMessage } from "~/conversation/message-types";
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

  it("keeps what only looks like Markdown, so the title means what the text says", () => {
    expect(titleFromExchange("19.99 * 3 * 1.08")).toBe("19.99 * 3 * 1.08");
    expect(titleFromExchange("What is 2*3*4?")).toBe("What is 2*3*4?");
    expect(titleFromExchange("rename my_var_name to total")).toBe("rename my_var_name to total");
    expect(titleFromExchange("Is a_b > c_d ~ e?")).toBe("Is a_b > c_d ~ e?");
    expect(titleFromExchange("* 5 apples")).toBe("5 apples");
  });

  it("removes real emphasis, inline code marks, quotes and fences", () => {
    expect(titleFromExchange("Why is _this_ __so__ ***slow***?")).toBe("Why is this so slow?");
    expect(titleFromExchange("Explain `Array.prototype.at` please")).toBe("Explain Array.prototype.at please");
    expect(titleFromExchange("> quoted ~~old~~ idea")).toBe("quoted old idea");
    expect(titleFromExchange("~~~\nfenced\n~~~\nAfter the fence")).toBe("After the fence");
  });

  it("cuts long text at a word near 60 characters", () => {
    const title = titleFromExchange(
      "Please explain in detail how the quarterly revenue numbers were calculated for the board",
    );
    expect(title).toBe("Please explain in detail how the quarterly revenue numbers…");
    expect(title.length).toBeLessThanOrEqual(61);
  });

  it("falls back to the reply, then to New chat", () => {
    expect(titleFromExchange("???", "Greetings from the model")).toBe("Greetings from the model");
    expect(titleFromExchange("  ", "")).toBe("New chat");
  });
});

describe("historyForReply", () => {
  const child = (message: ChatMessage, parentId: string | null): ChatMessage => ({
    ...message,
    metadata: { parentId },
  });
  // Two branches: u2 was edited into u2b, whose reply was regenerated (a2b, then a2c).
  const stored = [
    child(user("u1", "first"), null),
    child(reply("a1", "answer one"), "u1"),
    child(user("u2", "second"), "a1"),
    child(reply("a2", "answer two"), "u2"),
    child(user("u2b", "second, better"), "a1"),
    child(reply("a2b", "answer two b"), "u2b"),
    child(reply("a2c", "answer two c"), "u2b"),
  ];
  const ids = (history: ChatMessage[]) => history.map((m) => m.id);

  it("a new message follows the reply it names, and the model gets that branch only", () => {
    const after = historyForReply(stored, { id: "u3", text: "third" }, "a2", "a2c");
    expect(after).toMatchObject({ kind: "submit", parentId: "a2" });
    expect(ids(after.history)).toEqual(["u1", "a1", "u2", "a2", "u3"]);
    // Without a parent: after the branch shown.
    expect(ids(historyForReply(stored, { id: "u3", text: "third" }, undefined, "a2c").history)).toEqual([
      "u1",
      "a1",
      "u2b",
      "a2c",
      "u3",
    ]);
    // An edit of the first message is a new first message.
    expect(historyForReply(stored, { id: "u0", text: "zeroth" }, null, "a2c")).toMatchObject({
      parentId: null,
      history: [{ id: "u0" }],
    });
  });

  it("a stored message with its text is answered again on its own branch, whatever is shown", () => {
    const again = historyForReply(stored, { id: "u2", text: "second" }, "a1", "a2c");
    expect(again).toMatchObject({ kind: "regenerate", parentId: "a1" });
    expect(ids(again.history)).toEqual(["u1", "a1", "u2"]);
    expect(ids(historyForReply(stored, { id: "u1", text: "first" }, undefined, "a2c").history)).toEqual(["u1"]);
  });

  it("a sent message is never changed, and a parent must be a reply of this conversation", () => {
    expect(() => historyForReply(stored, { id: "u2", text: "changed" }, "a1", null)).toThrow(HistoryError);
    expect(() => historyForReply(stored, { id: "a1", text: "answer one" }, "u1", null)).toThrow(HistoryError);
    expect(() => historyForReply(stored, { id: "u9", text: "x" }, "nope", null)).toThrow(ParentError);
    expect(() => historyForReply(stored, { id: "u9", text: "x" }, "u2", null)).toThrow(ParentError);
    expect(() => historyForReply(stored, { id: "u2", text: "second" }, "a2", null)).toThrow(ParentError);
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
