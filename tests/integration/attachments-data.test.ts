import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attachmentContents,
  findAttachments,
  firstPassages,
  getAttachmentFile,
  searchPassages,
  storageUsed,
  storeAttachment,
  type NewAttachment,
} from "~/data/attachments.server";
import { saveExchange } from "~/data/messages.server";
import { openDatabase, type Db } from "~/db/client.server";
import { attachmentChunks, attachments, conversations } from "~/db/schema";
import { textFile } from "../support/attachment-files";
import { testDatabases } from "../support/databases";

/** The attachments' data layer on each database the suite has: PGlite, and the PostgreSQL server in CI. */

describe.each(testDatabases())("attachments on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  it("keeps the bytes exactly, and serves them to their owner only", async () => {
    const uid = `files-${randomUUID()}`;
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 37) % 256);
    const file: NewAttachment = {
      id: randomUUID(),
      uid,
      name: "blob.png",
      kind: "image",
      mediaType: "image/png",
      bytes,
      chunks: [],
    };
    expect(await storeAttachment(db, file, 10_000_000)).toEqual({ ok: true, usedBytes: 4096 });
    expect(new Uint8Array((await getAttachmentFile(db, uid, file.id))!.bytes)).toEqual(bytes);
    expect(await getAttachmentFile(db, "someone-else", file.id)).toBeUndefined();
    const contents = await attachmentContents(db, uid, [file.id], 1000);
    expect(new Uint8Array(contents.get(file.id)!.bytes!)).toEqual(bytes);
  });

  it("20 uploads at once against room for 5 store exactly 5", async () => {
    const uid = `room-${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => storeAttachment(db, textFile(uid, `${"x".repeat(999)}${i % 10}`), 5000)),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(5);
    expect(await storageUsed(db, uid)).toBe(5000);
  });

  it("ranks passages by their words, and by meaning when given the question's vector", async () => {
    const uid = `search-${randomUUID()}`;
    const lines = Array.from({ length: 400 }, (_, i) => `Shipment ${i} of timber reached the quay on schedule.`);
    lines[250] = "The lighthouse keeper counted invoices every evening.";
    const file = textFile(uid, lines.join("\n"), "log.txt");
    // A made-up two-dimensional meaning: the passage holding line 251 points one way, every other passage the other.
    file.chunks = file.chunks.map((chunk) => ({
      ...chunk,
      embedding: chunk.text.includes("lighthouse") ? [1, 0] : [0, 1],
    }));
    await storeAttachment(db, file, 10_000_000);

    const byWords = await searchPassages(db, uid, [file.id], "How many invoices did the keeper count?", 3);
    expect(byWords[0].text).toContain("counted invoices");
    expect(byWords[0]).toMatchObject({ lineFrom: expect.any(Number), lineTo: expect.any(Number) });

    // No word in common, but the same meaning: only the vector finds it.
    expect(await searchPassages(db, uid, [file.id], "zzz qqq", 3)).toEqual([]);
    const byMeaning = await searchPassages(db, uid, [file.id], "zzz qqq", 3, [1, 0]);
    expect(byMeaning[0].text).toContain("counted invoices");
  });

  it("one account's search never returns another account's passages, even given their ids", async () => {
    const owner = `owner-${randomUUID()}`;
    const intruder = `intruder-${randomUUID()}`;
    const secret = textFile(owner, "The vault combination is seven four one nine.", "vault.txt");
    secret.chunks = secret.chunks.map((chunk) => ({ ...chunk, embedding: [1, 0] }));
    await storeAttachment(db, secret, 10_000_000);
    const own = textFile(intruder, "My own shopping list: bread, milk.", "list.txt");
    await storeAttachment(db, own, 10_000_000);
    const question = "What is the vault combination?";
    expect((await searchPassages(db, owner, [secret.id], question, 5))[0].text).toContain("vault combination");

    // Named beside the intruder's own file, by words, by meaning, and as a question with nothing to search for.
    const named = [secret.id, own.id];
    const found = [
      ...(await searchPassages(db, intruder, named, question, 5)),
      ...(await searchPassages(db, intruder, named, "zzz", 5, [1, 0])),
      ...(await firstPassages(db, intruder, named, 5)),
    ];
    expect(found.map((passage) => passage.attachmentId).filter((id) => id !== own.id)).toEqual([]);
    expect(found.map((passage) => passage.text).join(" ")).not.toContain("vault");
    expect(await firstPassages(db, owner, named, 5)).toEqual([expect.objectContaining({ attachmentId: secret.id })]);
  });

  it("a sent message owns its files, which go with its conversation", async () => {
    const uid = `owned-${randomUUID()}`;
    const file = textFile(uid, "Attached words.");
    await storeAttachment(db, file, 10_000_000);
    const conversationId = randomUUID();
    const userId = randomUUID();
    const [row] = await findAttachments(db, uid, [file.id]);
    const saved = await saveExchange(db, {
      uid,
      conversationId,
      kind: "submit",
      parentId: null,
      user: {
        id: userId,
        text: "Read it",
        sentAt: new Date(),
        attachments: [{ id: row.id, name: row.name, kind: row.kind, mediaType: row.mediaType, size: row.size }],
      },
      reply: {
        id: randomUUID(),
        parts: [{ type: "text", text: "Done." }],
        content: "Done.",
        status: "completed",
        model: "m",
        inputTokens: 1,
        outputTokens: 1,
      },
      usageDay: new Date().toISOString().slice(0, 10),
      title: "Read it",
      create: { systemPrompt: null, customInstructions: null, title: null },
    });
    expect(saved).not.toBeNull();
    expect((await findAttachments(db, uid, [file.id]))[0].messageId).toBe(userId);

    await db.delete(conversations).where(eq(conversations.id, conversationId));
    expect(await db.select().from(attachments).where(eq(attachments.id, file.id))).toEqual([]);
    expect(await db.select().from(attachmentChunks).where(eq(attachmentChunks.attachmentId, file.id))).toEqual([]);
  });
});
