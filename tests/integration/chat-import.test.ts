import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { branchPath } from "~/conversation/branches";
import { exportAccountData, type AccountDetails } from "~/data/account.server";
import { storageUsed } from "~/data/attachments.server";
import { listConversations } from "~/data/conversations.server";
import { claimJob, createImportJob, latestImport, runJob } from "~/data/import/import-jobs.server";
import { readConversations, readExport } from "~/data/import/read-export.server";
import { getConversationWithMessages, saveExchange, type Exchange } from "~/data/messages.server";
import { openDatabase, type Db } from "~/db/client.server";
import { importJobs } from "~/db/schema";
import {
  chatgptBranched,
  chatgptExport,
  chatgptLooping,
  claudeBranched,
  exportZip,
  jsonBytes,
} from "../support/import-fixtures";
import { testDatabases } from "../support/databases";

/**
 * The background import (docs/decisions/104): progress on the job, a restart
 * in the middle resumed from where it was, nothing imported twice, the
 * storage limit, and the account export read back with its branches.
 */

const LARGE = 1024 * 1024 * 1024;

async function upload(db: Db, uid: string, bytes: Uint8Array, storageLimitBytes = LARGE) {
  const read = readExport(bytes);
  return createImportJob(db, {
    uid,
    source: read.source,
    fileName: "conversations.json",
    items: read.items,
    storageLimitBytes,
  });
}

/** Runs the job to its end, as a worker would. */
async function runToEnd(db: Db, jobId: string) {
  const job = await claimJob(db, jobId);
  expect(job).not.toBeNull();
  return runJob(db, job!);
}

/** A conversation's messages as [text of parent, role: text], stored order. */
async function treeOf(db: Db, uid: string, conversationId: string) {
  const found = (await getConversationWithMessages(db, uid, conversationId))!;
  const text = new Map(found.messages.map((m) => [m.id, m.content]));
  return {
    conversation: found.conversation,
    shape: found.messages.map((m) => [m.parentId ? text.get(m.parentId) : null, `${m.role}: ${m.content}`]),
    shown: branchPath(
      found.messages.map((m) => ({ id: m.id, parentId: m.parentId, content: m.content })),
      found.conversation.currentLeafId,
    ).map((m) => m.content),
    messages: found.messages,
  };
}

describe.each(testDatabases())("importing chats on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  it("imports in the background with progress, resumes after a restart, and imports nothing twice", async () => {
    const uid = `import-${randomUUID()}`;
    const file = exportZip([chatgptBranched(), ...chatgptExport(28), chatgptLooping()]);
    const job = await upload(db, uid, file);
    expect(job).toMatchObject({ status: "queued", total: 30, imported: 0, skipped: 1 });

    // The first worker imports 10, then its instance goes away mid-job.
    const first = await claimJob(db, job.id);
    expect(await runJob(db, first!, { stopAfter: 10 })).toBe("running");
    expect(await latestImport(db, uid)).toMatchObject({ status: "running", imported: 10, skipped: 1, total: 30 });
    // Its lease holds the job: no other worker takes it up until the lease runs out.
    expect(await claimJob(db, job.id)).toBeNull();
    await db
      .update(importJobs)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(importJobs.id, job.id));

    // The next worker goes on from the eleventh.
    expect(await runToEnd(db, job.id)).toBe("done");
    const done = await latestImport(db, uid);
    expect(done).toMatchObject({ status: "done", imported: 29, skipped: 1 });
    expect(done!.skippedItems).toEqual([{ title: "Looping", reason: "its messages' parents form a loop" }]);
    const listed = await listConversations(db, uid, { limit: 1000 });
    expect(listed).toHaveLength(29);

    // The same file again: every conversation is already here.
    const again = await upload(db, uid, file);
    expect(await runToEnd(db, again.id)).toBe("done");
    expect(await latestImport(db, uid)).toMatchObject({ imported: 0, skipped: 30 });
    expect((await latestImport(db, uid))!.skippedItems.slice(0, 1)).toEqual([
      { title: "Trip to Lisbon", reason: "it was imported before" },
    ]);
    expect(await listConversations(db, uid, { limit: 1000 })).toHaveLength(29);
  });

  it("two workers on one job (a lease that ran out while its worker still ran) import each conversation once", async () => {
    const uid = `import-${randomUUID()}`;
    const job = await upload(db, uid, jsonBytes(chatgptExport(60)));
    const first = await claimJob(db, job.id);
    await db
      .update(importJobs)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(importJobs.id, job.id));
    const second = await claimJob(db, job.id);
    expect(second).not.toBeNull();
    await Promise.all([runJob(db, first!), runJob(db, second!)]);
    expect(await latestImport(db, uid)).toMatchObject({ status: "done", imported: 60, skipped: 0 });
    expect(await listConversations(db, uid, { limit: 1000 })).toHaveLength(60);
  });

  it("keeps titles, original dates (the list's order), branches, the branch shown and missing files; search finds the words", async () => {
    const uid = `import-${randomUUID()}`;
    const job = await upload(
      db,
      uid,
      jsonBytes([chatgptBranched("late", "Later chat", 1_800_000_000), chatgptBranched()]),
    );
    expect(await runToEnd(db, job.id)).toBe("done");

    const listed = await listConversations(db, uid);
    expect(listed.map((c) => c.title)).toEqual(["Later chat", "Trip to Lisbon"]);
    const lisbon = listed[1];
    const tree = await treeOf(db, uid, lisbon.id);
    expect(tree.conversation.createdAt.toISOString()).toBe("2024-03-01T09:00:00.000Z");
    expect(tree.conversation.updatedAt.toISOString()).toBe("2024-03-01T09:10:00.000Z");
    expect(tree.shape).toEqual(readTree(chatgptBranched()));
    expect(tree.shown).toEqual([
      "Plan three days in Lisbon.",
      "Day 1: Alfama. Day 2: Belém. Day 3: Sintra.",
      "Make it vegetarian.",
      "Vegetarian, take two: Jardim dos Sentidos.",
    ]);
    expect(tree.messages[0].parts).toEqual([
      { type: "text", text: "Plan three days in Lisbon." },
      { type: "data-missing-attachment", data: { name: "itinerary.pdf" } },
    ]);
    expect((await listConversations(db, uid, { search: "Jardim dos Sentidos" })).map((c) => c.title)).toEqual([
      "Later chat",
      "Trip to Lisbon",
    ]);
  });

  it("imports Claude.ai's branches", async () => {
    const uid = `import-${randomUUID()}`;
    const job = await upload(db, uid, jsonBytes([claudeBranched()]));
    expect(job.source).toBe("claude");
    expect(await runToEnd(db, job.id)).toBe("done");
    const [chat] = await listConversations(db, uid);
    const tree = await treeOf(db, uid, chat.id);
    expect(tree.shown.at(-1)).toBe("It is hungry: feed it twice a day.");
    expect(tree.shape.filter(([parent]) => parent === "And if it smells of acetone?")).toHaveLength(2);
  });

  it("stops at the storage limit, saying what was imported", async () => {
    const uid = `import-${randomUUID()}`;
    const chats = chatgptExport(10);
    const one = readExport(jsonBytes(chats.slice(0, 1))).items[0];
    const bytesOfOne = "conversation" in one ? JSON.stringify(one.conversation).length : 0;
    // Room for about three of them (their text is a bit smaller than their JSON).
    const job = await upload(db, uid, jsonBytes(chats), Math.round(bytesOfOne * 3));
    expect(await runToEnd(db, job.id)).toBe("stopped");
    const stopped = (await latestImport(db, uid))!;
    expect(stopped.status).toBe("stopped");
    expect(stopped.imported).toBeGreaterThanOrEqual(3);
    expect(stopped.imported).toBeLessThan(10);
    expect(stopped.message).toMatch(
      new RegExp(
        `^Your storage is full .*: the import stopped at "Chat number ${stopped.imported}"\\. ${stopped.imported} conversations were imported; the other ${10 - stopped.imported} were not\\.`,
      ),
    );
    expect(await listConversations(db, uid)).toHaveLength(stopped.imported);
    expect(await storageUsed(db, uid)).toBeLessThanOrEqual(Math.round(bytesOfOne * 3));
  });

  it("reads back the account export: titles, messages and branches as they were", async () => {
    const owner = `export-${randomUUID()}`;
    const conversationId = randomUUID();
    // A chat made here: a question, its answer, a follow-up edited into a second version, and its answer regenerated.
    const first = exchange(owner, conversationId, "What is a monad?", {
      create: { systemPrompt: null, customInstructions: null, title: "Monads" },
    });
    await saveExchange(db, first);
    await saveExchange(db, exchange(owner, conversationId, "Show one in JavaScript.", { parentId: first.reply.id }));
    const edited = exchange(owner, conversationId, "Show one in Haskell.", { parentId: first.reply.id });
    await saveExchange(db, edited);
    await saveExchange(db, {
      ...exchange(owner, conversationId, "Show one in Haskell.", { kind: "regenerate" }),
      user: edited.user,
      reply: {
        ...edited.reply,
        id: randomUUID(),
        content: "Again: Maybe.",
        parts: [{ type: "text", text: "Again: Maybe." }],
      },
    });

    const exported = JSON.parse(
      JSON.stringify(await exportAccountData(db, account(owner), { role: "", plan: "Free" })),
    );
    const read = readConversations(exported);
    expect(read.source).toBe("nuvara");
    const other = `import-${randomUUID()}`;
    const job = await createImportJob(db, {
      uid: other,
      source: read.source,
      fileName: "nuvara-data.json",
      items: read.items,
      storageLimitBytes: LARGE,
    });
    expect(await runToEnd(db, job.id)).toBe("done");

    const [original] = await listConversations(db, owner);
    const [copy] = await listConversations(db, other);
    expect(copy.title).toBe(original.title);
    const [before, after] = [await treeOf(db, owner, original.id), await treeOf(db, other, copy.id)];
    expect(after.shape).toEqual(before.shape);
    expect(after.shown).toEqual(before.shown);
    expect(after.shown.at(-1)).toBe("Again: Maybe.");
    expect(after.conversation.createdAt).toEqual(before.conversation.createdAt);
  });
});

/** What the parser made of a ChatGPT conversation, as [text of parent, role: text]. */
function readTree(conversation: unknown) {
  const [item] = readConversations([conversation]).items;
  if (!("conversation" in item)) throw new Error(item.skipped);
  const text = new Map(item.conversation.messages.map((m) => [m.id, m.text]));
  return item.conversation.messages.map((m) => [m.parentId ? text.get(m.parentId) : null, `${m.role}: ${m.text}`]);
}

function account(uid: string): AccountDetails {
  return {
    uid,
    email: `${uid}@example.com`,
    emailVerified: true,
    displayName: null,
    photoURL: null,
    providers: [],
    hasPassword: true,
    createdAt: null,
    lastSignInAt: null,
  };
}

function exchange(uid: string, conversationId: string, text: string, overrides: Partial<Exchange> = {}): Exchange {
  return {
    uid,
    conversationId,
    kind: "submit",
    user: { id: randomUUID(), text, sentAt: new Date() },
    reply: {
      id: randomUUID(),
      parts: [{ type: "text", text: `Re: ${text}` }],
      content: `Re: ${text}`,
      status: "completed",
      model: "test-model",
      inputTokens: 10,
      outputTokens: 5,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: text,
    ...overrides,
  };
}
