import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sweepTemporaryChats } from "~/chat/temporary-chats.server";
import { exportAccountData, type AccountDetails } from "~/data/account.server";
import {
  createConversation,
  createFolder,
  deleteConversations,
  deleteFolder,
  deleteTemporaryConversation,
  getConversation,
  listConversations,
  listFolders,
  moveToFolder,
  renameFolder,
  setArchived,
  setPinned,
  sweepTemporaryConversations,
} from "~/data/conversations.server";
import { storeAttachment } from "~/data/attachments.server";
import { saveExchange } from "~/data/messages.server";
import type { AttachmentRef } from "~/conversation/attachment-types";
import { openDatabase, type Db } from "~/db/client.server";
import { pinClock } from "~/time/clock.server";
import { textFile } from "../support/attachment-files";
import { testDatabases } from "../support/databases";

/** Chats organised (pinned, archived, in folders) and temporary chats, in the data layer (docs/decisions/085). */

/** A text file the user uploaded, not sent yet: what a message carries to send it. */
async function upload(db: Db, uid: string, name: string): Promise<AttachmentRef> {
  const file = textFile(uid, `The notes in ${name}`, name);
  await storeAttachment(db, file, 1e7);
  return { id: file.id, name, kind: "text", mediaType: file.mediaType, size: file.bytes.byteLength };
}

async function chat(
  db: Db,
  uid: string,
  text: string,
  create: { temporary?: boolean } = {},
  attachments: AttachmentRef[] = [],
) {
  const conversationId = randomUUID();
  await saveExchange(db, {
    uid,
    conversationId,
    kind: "submit",
    user: { id: randomUUID(), text, sentAt: new Date(), attachments },
    reply: {
      id: randomUUID(),
      parts: [{ type: "text", text: `Re: ${text}` }],
      content: `Re: ${text}`,
      status: "completed",
      model: "test-model",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: text,
    create: { systemPrompt: null, customInstructions: null, title: null, ...create },
  });
  return conversationId;
}

const titles = (rows: Array<{ title: string | null }>) => rows.map((row) => row.title).sort();

describe.each(testDatabases())("organising chats on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());
  afterEach(() => pinClock(undefined));

  it("pins and unpins; only the owner's chat", async () => {
    const uid = `pin-${randomUUID()}`;
    const id = await chat(db, uid, "Pinned one");
    expect(await setPinned(db, `other-${randomUUID()}`, id, true)).toBe(false);
    expect(await setPinned(db, uid, id, true)).toBe(true);
    expect((await listConversations(db, uid))[0]).toMatchObject({ id, pinned: true, archived: false });
    expect(await setPinned(db, uid, id, false)).toBe(true);
    expect((await listConversations(db, uid))[0].pinned).toBe(false);
  });

  it("archived chats leave the list for the archived view, are still found by search, and can be restored", async () => {
    const uid = `archive-${randomUUID()}`;
    const kept = await chat(db, uid, "Kept chat about apples");
    const archived = await chat(db, uid, "Old chat about apples");
    expect(await setArchived(db, `other-${randomUUID()}`, [archived], true)).toBe(0);
    expect(await setArchived(db, uid, [archived], true)).toBe(1);

    expect((await listConversations(db, uid)).map((row) => row.id)).toEqual([kept]);
    expect(await listConversations(db, uid, { view: "archived" })).toEqual([
      expect.objectContaining({ id: archived, archived: true }),
    ]);
    const found = await listConversations(db, uid, { search: "apples" });
    expect(found.map((row) => [row.title, row.archived]).sort()).toEqual([
      ["Kept chat about apples", false],
      ["Old chat about apples", true],
    ]);

    expect(await setArchived(db, uid, [archived], false)).toBe(1);
    expect(titles(await listConversations(db, uid))).toEqual(["Kept chat about apples", "Old chat about apples"]);
    expect(await listConversations(db, uid, { view: "archived" })).toEqual([]);
  });

  it("folders: made, renamed, chats filed in and out; deleting one puts its chats back among the loose ones", async () => {
    const uid = `folders-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    const id = await chat(db, uid, "Filed chat");
    const folder = await createFolder(db, uid, "Work");
    const theirs = await createFolder(db, other, "Theirs");
    expect(await listFolders(db, uid)).toEqual([{ id: folder.id, name: "Work" }]);

    // Another user's folder, or another user's chat: nothing changes.
    expect(await moveToFolder(db, uid, id, theirs.id)).toBe(false);
    expect(await moveToFolder(db, other, id, theirs.id)).toBe(false);
    expect(await moveToFolder(db, uid, id, folder.id)).toBe(true);
    expect((await listConversations(db, uid))[0].folderId).toBe(folder.id);

    expect(await renameFolder(db, other, folder.id, "Stolen")).toBe(false);
    expect(await renameFolder(db, uid, folder.id, "Projects")).toBe(true);
    expect(await listFolders(db, uid)).toEqual([{ id: folder.id, name: "Projects" }]);

    expect(await moveToFolder(db, uid, id, null)).toBe(true);
    expect((await listConversations(db, uid))[0].folderId).toBeNull();
    expect(await moveToFolder(db, uid, id, folder.id)).toBe(true);

    expect(await deleteFolder(db, other, folder.id)).toBe(false);
    expect(await deleteFolder(db, uid, folder.id)).toBe(true);
    expect(await listFolders(db, uid)).toEqual([]);
    expect(await listConversations(db, uid)).toEqual([expect.objectContaining({ id, folderId: null })]);
  });

  it("archives or deletes several chats at once, only the owner's", async () => {
    const uid = `bulk-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    const [a, b, c] = [await chat(db, uid, "A"), await chat(db, uid, "B"), await chat(db, uid, "C")];
    const theirs = await chat(db, other, "Theirs");
    expect(await setArchived(db, uid, [a, b, theirs], true)).toBe(2);
    expect(titles(await listConversations(db, uid, { view: "archived" }))).toEqual(["A", "B"]);
    expect(await deleteConversations(db, uid, [a, c, theirs])).toBe(2);
    expect(titles(await listConversations(db, uid, { view: "archived" }))).toEqual(["B"]);
    expect(await listConversations(db, uid)).toEqual([]);
    expect(await getConversation(db, other, theirs)).not.toBeNull();
  });

  it("a temporary chat is never listed, searched or exported, and only its owner's leaving deletes it", async () => {
    const uid = `temporary-${randomUUID()}`;
    const saved = await chat(db, uid, "Saved bananas", {}, [await upload(db, uid, "saved.txt")]);
    const temporary = await chat(db, uid, "Secret bananas", { temporary: true }, [await upload(db, uid, "secret.txt")]);
    await upload(db, uid, "unsent.txt");
    expect((await getConversation(db, uid, temporary))?.temporary).toBe(true);
    expect((await listConversations(db, uid)).map((row) => row.id)).toEqual([saved]);
    expect((await listConversations(db, uid, { search: "bananas" })).map((row) => row.id)).toEqual([saved]);

    const exported = await exportAccountData(db, { uid } as AccountDetails, { role: "", plan: "Free" });
    expect(exported.conversations.map((row) => row.id)).toEqual([saved]);
    // Nor the files sent in it; a file not sent yet belongs to no chat and is the user's.
    expect(exported.files.map((file) => file.name).sort()).toEqual(["saved.txt", "unsent.txt"]);

    // Leaving deletes only a temporary chat, and only the owner's.
    expect(await deleteTemporaryConversation(db, uid, saved)).toBe(false);
    expect(await deleteTemporaryConversation(db, `other-${randomUUID()}`, temporary)).toBe(false);
    expect(await deleteTemporaryConversation(db, uid, temporary)).toBe(true);
    expect(await getConversation(db, uid, temporary)).toBeNull();
    expect(await getConversation(db, uid, saved)).not.toBeNull();
  });

  it("the sweep deletes temporary chats a day old, on the app's clock, and nothing else", async () => {
    const uid = `sweep-${randomUUID()}`;
    const saved = await chat(db, uid, "Saved");
    const temporary = await chat(db, uid, "Left behind", { temporary: true });
    // Other tests' temporary chats may be swept too: only these two are looked at.
    await sweepTemporaryChats(db);
    expect(await getConversation(db, uid, temporary)).not.toBeNull();
    pinClock(new Date(Date.now() + 23 * 3_600_000));
    await sweepTemporaryChats(db);
    expect(await getConversation(db, uid, temporary)).not.toBeNull();
    pinClock(new Date(Date.now() + 25 * 3_600_000));
    expect(await sweepTemporaryChats(db)).toBeGreaterThanOrEqual(1);
    expect(await getConversation(db, uid, temporary)).toBeNull();
    expect(await getConversation(db, uid, saved)).not.toBeNull();
    expect(await sweepTemporaryConversations(db, new Date(Date.now() + 25 * 3_600_000))).toBe(0);
  });

  it("a conversation made directly can be temporary too", async () => {
    const uid = `direct-${randomUUID()}`;
    const row = await createConversation(db, { uid, temporary: true });
    expect(row.temporary).toBe(true);
    expect(await listConversations(db, uid)).toEqual([]);
  });
});
