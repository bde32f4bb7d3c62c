import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { getConversation } from "~/data/conversations.server";
import { getDb } from "~/db/client.server";
import { loader as exportLoader } from "~/routes/api.conversations.$conversationId.markdown";
import { action as shareAction } from "~/routes/api.conversations.$conversationId.share";
import { action as layoutAction, loader as layoutLoader } from "~/routes/nuvara";
import { action as conversationAction } from "~/routes/nuvara.$conversationId";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { respond } from "./admin-support";
import { dataOf, firstMessage, postChat, readChunks } from "./chat-support";

/** Pin, archive, folders, several chats at once and temporary chats, through the /nuvara routes (docs/decisions/085). */

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, { LLM_MODELS: "test-model", LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  delete process.env.LLM_MODELS;
  delete process.env.LLM_BASE_URL;
  resetConfig();
  await model.close();
  await firebase.close();
});

async function signedIn() {
  const account = await createAccount(firebase, {});
  return { account, cookie: await sessionCookieFor(account) };
}

function post(path: string, fields: Array<[string, string]> | Record<string, string>, cookie: string) {
  return appRequest(path, {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}

/** A chat made through the chat endpoint, as the page makes it. */
async function newChat(cookie: string, text: string, extra: Record<string, unknown> = {}) {
  const body = { ...firstMessage(text), ...extra };
  const chunks = await readChunks(await postChat(body, { cookie }));
  expect(dataOf(chunks, "saved"), JSON.stringify(chunks)).toMatchObject({ status: "completed" });
  return body.conversationId;
}

async function list(cookie: string, query = "") {
  const response = await respond(layoutLoader, appRequest(`/nuvara${query}`, { cookie }));
  return (await response.json()) as {
    view: string;
    folders: Array<{ id: string; name: string }>;
    conversations: Array<{ id: string; title: string; pinned?: boolean; archived?: boolean; folderId?: string | null }>;
  };
}

describe("organising the list", () => {
  it("pins, archives and restores a chat, files it in a folder; another user gets 404, bad input a clear 400", async () => {
    const { cookie } = await signedIn();
    const other = await signedIn();
    const id = await newChat(cookie, "Plan a picnic");
    const act = (fields: Record<string, string>, who = cookie) =>
      respond(conversationAction, post(`/nuvara/${id}`, fields, who), { conversationId: id });

    for (const intent of ["pin", "unpin", "archive", "restore", "move"]) {
      expect((await act({ intent }, other.cookie)).status, intent).toBe(404);
    }
    expect(
      (await respond(conversationAction, post("/nuvara/nope", { intent: "pin" }, cookie), { conversationId: "nope" }))
        .status,
    ).toBe(404);

    expect(await (await act({ intent: "pin" })).json()).toEqual({ ok: true });
    expect((await list(cookie)).conversations.find((row) => row.id === id)?.pinned).toBe(true);

    expect(await (await act({ intent: "archive" })).json()).toEqual({ ok: true });
    expect((await list(cookie)).conversations.map((row) => row.id)).not.toContain(id);
    const archived = await list(cookie, "?view=archived");
    expect(archived.view).toBe("archived");
    expect(archived.conversations).toEqual([expect.objectContaining({ id, archived: true })]);
    expect((await list(cookie, "?q=picnic")).conversations).toEqual([expect.objectContaining({ id, archived: true })]);
    expect(await (await act({ intent: "restore" })).json()).toEqual({ ok: true });
    expect((await list(cookie)).conversations.map((row) => row.id)).toContain(id);

    const made = await respond(
      layoutAction,
      post("/nuvara", { intent: "folder-create", name: "  Summer  plans " }, cookie),
    );
    const { folder } = (await made.json()) as { folder: { id: string; name: string } };
    expect(folder.name).toBe("Summer plans");
    const theirFolder = (await (
      await respond(layoutAction, post("/nuvara", { intent: "folder-create", name: "Theirs" }, other.cookie))
    ).json()) as { folder: { id: string } };

    const refused = await act({ intent: "move", folder: theirFolder.folder.id });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatch(/folder doesn't exist/);
    expect((await act({ intent: "move", folder: "not-a-uuid" })).status).toBe(400);
    expect(await (await act({ intent: "move", folder: folder.id })).json()).toEqual({ ok: true });
    const filed = await list(cookie);
    expect(filed.folders).toEqual([folder]);
    expect(filed.conversations.find((row) => row.id === id)?.folderId).toBe(folder.id);
    expect(await (await act({ intent: "move", folder: "" })).json()).toEqual({ ok: true });
  });

  it("folders: a name is required and bounded; another user's folder is a 404; deleting keeps the chats", async () => {
    const { cookie } = await signedIn();
    const other = await signedIn();
    const layout = (fields: Record<string, string>, who = cookie) =>
      respond(layoutAction, post("/nuvara", fields, who));

    const empty = await layout({ intent: "folder-create", name: "   " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Please enter a folder name." });
    expect((await layout({ intent: "folder-create", name: "x".repeat(61) })).status).toBe(400);

    const { folder } = (await (await layout({ intent: "folder-create", name: "Work" })).json()) as {
      folder: { id: string };
    };
    expect((await layout({ intent: "folder-rename", folder: folder.id, name: "Mine" }, other.cookie)).status).toBe(404);
    expect((await layout({ intent: "folder-delete", folder: folder.id }, other.cookie)).status).toBe(404);
    expect((await layout({ intent: "folder-delete", folder: "bad" })).status).toBe(404);
    expect(await (await layout({ intent: "folder-rename", folder: folder.id, name: "Projects" })).json()).toEqual({
      ok: true,
    });

    const id = await newChat(cookie, "Quarterly report");
    await respond(conversationAction, post(`/nuvara/${id}`, { intent: "move", folder: folder.id }, cookie), {
      conversationId: id,
    });
    expect(await (await layout({ intent: "folder-delete", folder: folder.id })).json()).toEqual({ ok: true });
    const after = await list(cookie);
    expect(after.folders).toEqual([]);
    expect(after.conversations).toEqual([expect.objectContaining({ id, folderId: null })]);
  });

  it("archives or deletes the selected chats, only the user's own; an empty or malformed selection is a 400", async () => {
    const { cookie } = await signedIn();
    const other = await signedIn();
    const [a, b, c] = [await newChat(cookie, "One"), await newChat(cookie, "Two"), await newChat(cookie, "Three")];
    const theirs = await newChat(other.cookie, "Theirs");
    const bulk = (intent: string, ids: string[]) =>
      respond(
        layoutAction,
        post("/nuvara", [["intent", intent], ...ids.map((id): [string, string] => ["id", id])], cookie),
      );

    const none = await bulk("bulk-archive", []);
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: "Select at least one chat." });
    expect((await bulk("bulk-delete", ["nope"])).status).toBe(400);

    expect(await (await bulk("bulk-archive", [a, b, theirs])).json()).toEqual({ ok: true, count: 2 });
    expect((await list(cookie)).conversations.map((row) => row.id)).toEqual([c]);
    expect(await (await bulk("bulk-delete", [a, c, theirs])).json()).toEqual({ ok: true, count: 2 });
    expect((await list(cookie, "?view=archived")).conversations.map((row) => row.id)).toEqual([b]);
    expect(await getConversation(await getDb(), other.account.uid, theirs)).not.toBeNull();
  });
});

describe("a temporary chat", () => {
  it("is stored marked temporary, never listed or found, never exported or shared, and deleted when left", async () => {
    const { account, cookie } = await signedIn();
    const id = await newChat(cookie, "Whisper about mangoes", { temporary: true });
    const db = await getDb();
    expect((await getConversation(db, account.uid, id))?.temporary).toBe(true);
    expect((await list(cookie)).conversations).toEqual([]);
    expect((await list(cookie, "?q=mangoes")).conversations).toEqual([]);

    const exported = await respond(exportLoader, appRequest(`/api/conversations/${id}/markdown`, { cookie }), {
      conversationId: id,
    });
    expect(exported.status).toBe(409);
    expect((await exported.json()).error).toBe("A temporary chat isn't saved, so it can't be exported.");

    const shared = await respond(shareAction, post(`/api/conversations/${id}/share`, { intent: "create" }, cookie), {
      conversationId: id,
    });
    expect(shared.status).toBe(409);
    expect((await shared.json()).error).toMatch(/A temporary chat can't be shared/);

    // Another user's leaving deletes nothing; the owner's does; leaving twice is no error.
    const other = await signedIn();
    const leave = (who: string) =>
      respond(conversationAction, post(`/nuvara/${id}`, { intent: "leave" }, who), { conversationId: id });
    expect(await (await leave(other.cookie)).json()).toEqual({ ok: true, deleted: false });
    expect(await (await leave(cookie)).json()).toEqual({ ok: true, deleted: true });
    expect(await getConversation(db, account.uid, id)).toBeNull();
    expect(await (await leave(cookie)).json()).toEqual({ ok: true, deleted: false });
  });

  it("leaving an ordinary chat deletes nothing", async () => {
    const { account, cookie } = await signedIn();
    const id = await newChat(cookie, "Keep me");
    const left = await respond(conversationAction, post(`/nuvara/${id}`, { intent: "leave" }, cookie), {
      conversationId: id,
    });
    expect(await left.json()).toEqual({ ok: true, deleted: false });
    expect(await getConversation(await getDb(), account.uid, id)).not.toBeNull();
  });

  it("`temporary` must be a boolean", async () => {
    const { cookie } = await signedIn();
    const response = await postChat({ ...firstMessage("hi"), temporary: "yes" }, { cookie });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatch(/temporary must be true or false/);
  });
});
