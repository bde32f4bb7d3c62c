import { afterAll, describe, expect, it } from "vitest";
import { conversationSubscriberCount, publishConversationEvent } from "~/chat/live/conversation-events.server";
import { conversationEventsResponse } from "~/chat/live/events-endpoint.server";
import { getDb } from "~/db/client.server";
import { action as logoutAction } from "~/routes/api.auth.logout";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { followConversationEvents as follow, waitUntil } from "./chat-support";

/**
 * GET /api/conversations/events (docs/decisions/086): the user's own events
 * only, first the replies being written; it closes once the session ends,
 * and a closed stream leaves nothing subscribed.
 */
const firebase = admin();

afterAll(async () => {
  await firebase.close();
});

async function signedIn() {
  const account = await createAccount(firebase);
  return { account, cookie: await sessionCookieFor(account) };
}

describe("the conversation event stream", () => {
  it("refuses a signed-out request", async () => {
    const response = await conversationEventsResponse(appRequest("/api/conversations/events"));
    expect(response.status).toBe(401);
  });

  it("sends the user's own events, first the replies being written, and unsubscribes when closed", async () => {
    const before = conversationSubscriberCount();
    const me = await signedIn();
    const other = await signedIn();
    const abort = new AbortController();
    // A store slow to answer on a loaded machine makes it a 503 (sign-in can't be checked): asked again.
    let response = new Response(null, { status: 503 });
    await waitUntil(
      "the stream to open",
      async () =>
        (response = await conversationEventsResponse(
          appRequest("/api/conversations/events", { cookie: me.cookie, signal: abort.signal }),
        )).status !== 503,
      20_000,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    const stream = follow(response);
    await waitUntil("the snapshot of runs", () => stream.events.length > 0);
    expect(stream.events[0]).toEqual({ type: "runs", runs: [] });

    const db = await getDb();
    await publishConversationEvent(db, other.account.uid, { type: "deleted", conversationId: "not-mine" });
    await publishConversationEvent(db, me.account.uid, { type: "deleted", conversationId: "mine" });
    await waitUntil("my event", () => stream.events.length > 1);
    expect(stream.events.slice(1)).toEqual([{ type: "deleted", conversationId: "mine" }]);

    abort.abort();
    await waitUntil("the stream to close", () => stream.ended());
    expect(conversationSubscriberCount()).toBe(before);
  });

  it("says signed-out and closes once the session is logged out", async () => {
    const me = await signedIn();
    const response = await conversationEventsResponse(appRequest("/api/conversations/events", { cookie: me.cookie }), {
      checkMs: 100,
    });
    const stream = follow(response);
    await waitUntil("the snapshot of runs", () => stream.events.length > 0);
    const logout = await logoutAction({
      request: appRequest("/api/auth/logout", { method: "POST", cookie: me.cookie, headers: { Origin: APP_ORIGIN } }),
      params: {},
      context: {},
    });
    expect(logout.status).toBe(303);
    await waitUntil("the stream to close", () => stream.ended());
    expect(stream.events.at(-1)).toEqual({ type: "signed-out" });
  });
});
