import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { admin, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { appHandler } from "../support/remix-app";

/**
 * Bounded Markdown (ADR 050) through the whole app: a conversation whose
 * stored reply is costly or deeply nested Markdown opens (200, the text on
 * the page) and does not hold the server for seconds. Before the fix the 1.2 KB `>` reply made the page a
 * 500 on every load and the 60 KB bracket reply took 4–5 s per view.
 */

const firebase = admin();
let handle: (request: Request) => Promise<Response>;
let uid: string;
let cookie: string;

beforeAll(async () => {
  handle = await appHandler();
  const account = await createAccount(firebase);
  uid = account.uid;
  cookie = await sessionCookieFor(account);
});

afterAll(() => firebase.close());

async function conversationWithReply(text: string): Promise<string> {
  const db = await getDb();
  const conversation = await createConversation(db, { uid });
  await saveExchange(db, {
    uid,
    conversationId: conversation.id,
    kind: "submit",
    user: { id: randomUUID(), text: "Reply with this text", sentAt: new Date() },
    reply: {
      id: randomUUID(),
      parts: [{ type: "text", text }],
      content: text,
      status: "completed",
      model: "test-model",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Markdown payload",
  });
  return conversation.id;
}

async function openPage(conversationId: string) {
  const started = performance.now();
  const response = await handle(appRequest(`/nuvara/${conversationId}`, { cookie }));
  const html = await response.text();
  return { response, html, ms: performance.now() - started };
}

describe("conversation pages with hostile Markdown replies", () => {
  it("1 200 nested `>` → 200, the reply shown as plain text (was a 500 on every load)", async () => {
    const id = await conversationWithReply(">".repeat(1_200) + " deepest");
    const { response, html } = await openPage(id);
    expect(response.status).toBe(200);
    expect(html).toContain("&gt;".repeat(50));
    expect(html).toContain("deepest");
    expect(html).toContain("markdown-plain");
  });

  it("60 KB of nested brackets → 200 quickly, the text on the page (was 4–5 s of blocked server)", async () => {
    const id = await conversationWithReply("[".repeat(30_000) + "middle" + "]".repeat(30_000));
    const { response, html, ms } = await openPage(id);
    expect(response.status).toBe(200);
    expect(html).toContain("[".repeat(100) + "middle" + "]".repeat(100));
    // The whole page, signed in, on a loaded test machine: the Markdown parse alone took seconds.
    expect(ms).toBeLessThan(1_500);
  });

  it("an ordinary reply on the same page is still Markdown", async () => {
    const id = await conversationWithReply("Start at **Belém**, then [the tram](https://example.org/28).");
    const { response, html } = await openPage(id);
    expect(response.status).toBe(200);
    expect(html).toContain("<strong>Belém</strong>");
    expect(html).toContain('<a href="https://example.org/28" target="_blank" rel="noopener noreferrer">the tram</a>');
  });
});
