import { expect, type Page } from "@playwright/test";
import type { ChatCompletionRequest, FailureMode, RequestOutcome, ScriptedReply } from "../support/model-server";

/**
 * For the assistant's browser tests: the scripted model server behind the app
 * (it runs in Playwright's runner, tests/e2e/global-setup.ts, and is
 * controlled over HTTP), and locators for the chat page.
 */
const controlURL = () => `http://127.0.0.1:${process.env.E2E_MODEL_CONTROL_PORT}`;

async function call(method: "GET" | "POST", path: string, body?: unknown) {
  const response = await fetch(`${controlURL()}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`model control ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

export interface ModelState {
  abortedCount: number;
  queuedReplies: number;
  titleRequests: Array<{ body: ChatCompletionRequest | undefined }>;
  requests: Array<{ path: string; body: ChatCompletionRequest | undefined; outcome: RequestOutcome | "open" }>;
}

export const scriptedModel = {
  enqueue: (...replies: ScriptedReply[]) => call("POST", "/enqueue", { replies }),
  failWith: (mode: FailureMode | null) => call("POST", "/failure", { mode }),
  /** The title of the chat whose first message carries `match` (app/chat/generated-title.server.ts). */
  enqueueTitle: (match: string, reply: ScriptedReply) => call("POST", "/enqueue-title", { match, reply }),
  reset: () => call("POST", "/reset"),
  state: () => call("GET", "/state") as Promise<ModelState>,
};

// ---- the page ---------------------------------------------------------------

/** The composer's message box and its buttons. */
export function composer(page: Page) {
  return {
    box: page.getByRole("textbox", { name: "Message" }),
    send: page.getByRole("button", { name: "Send", exact: true }),
    stop: page.getByRole("button", { name: "Stop", exact: true }),
  };
}

/** Types a message and sends it with Enter, once the page is live (Send enabled). */
export async function sendMessage(page: Page, text: string) {
  const { box, send } = composer(page);
  await box.fill(text);
  // Send is enabled once the page is live: hydration takes seconds on a slow device or a busy machine.
  await expect(send).toBeEnabled({ timeout: 20_000 });
  await box.press("Enter");
}

/** The transcript's messages: the user's ("You") and the replies ("Assistant"). */
export function replies(page: Page) {
  return page.getByRole("log", { name: "Conversation" }).getByRole("article", { name: "Assistant" });
}

export function userMessages(page: Page) {
  return page.getByRole("log", { name: "Conversation" }).getByRole("article", { name: "You" });
}

export function conversationList(page: Page) {
  return page.getByRole("navigation", { name: "Conversations" });
}

/** The page's conversation list marks no chat as "still writing…" (it clears live when a run ends). */
export async function expectNoneWriting(page: Page) {
  await expect(page.locator("#conversation-list").getByText("still writing…")).toHaveCount(0);
}

/** The last chat completion request the app sent to the model. */
export async function lastModelRequest() {
  const { requests } = await scriptedModel.state();
  const chats = requests.filter((request) => request.path === "/v1/chat/completions");
  return chats[chats.length - 1]?.body;
}

/**
 * The model request that carried `text` as its last user message, once the
 * model has received it: an answer's article shows as soon as the message is
 * sent, before the request reaches the model on a busy machine, so reading
 * "the last request" then may read the one before.
 */
export async function modelRequestFor(text: string) {
  const carries = (body: ChatCompletionRequest | undefined) =>
    JSON.stringify(body?.messages?.filter((message) => message.role === "user").at(-1)?.content ?? "").includes(text);
  let found: ChatCompletionRequest | undefined;
  await expect
    .poll(
      async () => {
        const { requests } = await scriptedModel.state();
        found = requests
          .filter((request) => request.path === "/v1/chat/completions" && carries(request.body))
          .at(-1)?.body;
        return found !== undefined;
      },
      { message: `a model request carrying "${text}"` },
    )
    .toBe(true);
  return found!;
}

/** A new chat takes its own URL once the server holds it. */
export async function expectConversationUrl(page: Page) {
  await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
}
