import { eq, getTableName, inArray, is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { addContactMessage } from "~/data/inbox.server";
import {
  AccountDeletionError,
  deleteAccount,
  exportAccountData,
  getAccountDetails,
  RETAINED_TABLES,
  USER_TABLES,
} from "~/data/account.server";
import { setCustomInstructions, setToolEnabled } from "~/data/preferences.server";
import { getDb, type Db } from "~/db/client.server";
import * as schema from "~/db/schema";
import { conversations, inboxMessages, messages, usageDaily, userPreferences, userToolSettings } from "~/db/schema";
import { startModelServer, type ModelServer } from "../support/model-server";
import { healAll, setFault } from "../support/faults";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { firstMessage, newMessage, postChat } from "./chat-support";

/**
 * Exporting and deleting everything of an account (app/data/account.server.ts),
 * on data made the way users make it: chats through the real chat endpoint
 * against the scripted model, preferences, a contact message.
 */
const firebase = admin();
let model: ModelServer;
let db: Db;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, { LLM_BASE_URL: model.url, LLM_MODELS: "test-model" });
  resetConfig();
  db = await getDb();
});

afterAll(async () => {
  delete process.env.LLM_BASE_URL;
  delete process.env.LLM_MODELS;
  resetConfig();
  await model.close();
  await firebase.close();
});

afterEach(healAll);

/** A user with two chats (three exchanges), custom instructions, a tool switched off and a contact message. */
async function userWithData(role = "premium") {
  const account = await createAccount(firebase, { role, displayName: "Data Owner" });
  const cookie = await sessionCookieFor(account);
  const first = firstMessage("hello there");
  const chats = [
    first,
    { conversationId: first.conversationId, message: newMessage("and again"), model: "test-model" },
    firstMessage("a second chat"),
  ];
  for (const chat of chats) {
    const response = await postChat(chat, { cookie });
    expect(response.status).toBe(200);
    // The exchange is stored when its reply has streamed to the end.
    await response.text();
  }
  await setCustomInstructions(db, account.uid, "Answer briefly.");
  await setToolEnabled(db, account.uid, "calculator", false);
  await addContactMessage(db, { email: account.email, uid: account.uid, name: "Data Owner", role }, "Hello admins");
  return account;
}

async function rowsOf(uid: string) {
  const owned = await db.select({ id: conversations.id }).from(conversations).where(eq(conversations.uid, uid));
  const ids = owned.map((row) => row.id);
  return {
    conversations: owned.length,
    messages: ids.length ? (await db.select().from(messages).where(inArray(messages.conversationId, ids))).length : 0,
    usage: (await db.select().from(usageDaily).where(eq(usageDaily.uid, uid))).length,
    preferences: (await db.select().from(userPreferences).where(eq(userPreferences.uid, uid))).length,
    toolSettings: (await db.select().from(userToolSettings).where(eq(userToolSettings.uid, uid))).length,
    inbox: (await db.select().from(inboxMessages).where(eq(inboxMessages.senderUid, uid))).length,
  };
}

describe("which tables hold a user's data", () => {
  it("every table with a uid column is deleted with the account, or kept for a stated reason", () => {
    const handled = new Set(USER_TABLES.map(({ table }) => getTableName(table)));
    const unaccounted: string[] = [];
    for (const value of Object.values(schema)) {
      if (!is(value, PgTable)) continue;
      const { name, columns } = getTableConfig(value);
      const keyedByUser = columns.some((column) => /(^|_)uid$/.test(column.name));
      if (keyedByUser && !handled.has(name) && !(name in RETAINED_TABLES)) unaccounted.push(name);
    }
    expect(unaccounted, "tables keyed by a uid that account.server.ts neither deletes nor retains").toEqual([]);
  });
});

describe("exportAccountData", () => {
  it("holds the user's conversations with their messages, usage, preferences and messages to admins — and no one else's", async () => {
    const owner = await userWithData();
    const other = await userWithData();
    const data = await exportAccountData(db, await getAccountDetails(owner.uid), { role: "premium", plan: "Premium" });

    expect(data.account).toMatchObject({
      uid: owner.uid,
      email: owner.email,
      displayName: "Data Owner",
      plan: "Premium",
      emailVerified: true,
    });
    expect(data.account.providers.map((provider) => provider.id)).toEqual(["password"]);
    expect(data.conversations).toHaveLength(2);
    const texts = data.conversations.flatMap((conversation) =>
      conversation.messages.map((message) => `${message.role}:${message.content}`),
    );
    expect(texts).toEqual(
      expect.arrayContaining([
        "user:hello there",
        "assistant:You said: hello there",
        "user:and again",
        "user:a second chat",
      ]),
    );
    expect(texts).toHaveLength(6);
    expect(data.usage).toEqual([expect.objectContaining({ day: new Date().toISOString().slice(0, 10), messages: 3 })]);
    expect(data.usage[0].inputTokens + data.usage[0].outputTokens).toBeGreaterThan(0);
    expect(data.preferences).toEqual({
      customInstructions: "Answer briefly.",
      functionTools: [expect.objectContaining({ toolId: "calculator", enabled: false })],
      memoryEnabled: true,
    });
    expect(data.messagesToAdmins).toEqual([expect.objectContaining({ kind: "contact", body: "Hello admins" })]);
    expect(JSON.stringify(data)).not.toContain(other.uid);
  });
});

describe("deleteAccount", () => {
  it("deletes the identity, users/{email} and every row of the user, and leaves another user's data untouched", async () => {
    const leaving = await userWithData();
    const staying = await userWithData();
    const before = await rowsOf(staying.uid);
    expect(await rowsOf(leaving.uid)).toEqual({
      conversations: 2,
      messages: 6,
      usage: 1,
      preferences: 1,
      toolSettings: 1,
      inbox: 1,
    });

    const counts = await deleteAccount(db, { uid: leaving.uid, email: leaving.email });
    expect(counts).toMatchObject({
      messages: 6,
      conversations: 2,
      usage_daily: 1,
      user_preferences: 1,
      user_tool_settings: 1,
      inbox_messages: 1,
    });

    expect(await rowsOf(leaving.uid)).toEqual({
      conversations: 0,
      messages: 0,
      usage: 0,
      preferences: 0,
      toolSettings: 0,
      inbox: 0,
    });
    await expect(firebase.auth.getUser(leaving.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
    expect((await firebase.firestore.collection("users").doc(leaving.email).get()).exists).toBe(false);

    expect(await rowsOf(staying.uid)).toEqual(before);
    expect((await firebase.auth.getUser(staying.uid)).disabled).toBe(false);
    expect((await firebase.firestore.collection("users").doc(staying.email).get()).get("stripeRole")).toBe("premium");
  });

  it("with PostgreSQL down, deletes nothing and leaves the account usable", async () => {
    const account = await userWithData("");
    await setFault("postgres", "refuse");
    const failure = await deleteAccount(db, { uid: account.uid, email: account.email }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AccountDeletionError);
    expect((failure as AccountDeletionError).dataDeleted).toBe(false);
    expect((failure as Error).message).toMatch(/nothing was deleted/);
    await healAll();

    const record = await firebase.auth.getUser(account.uid);
    expect(record.disabled).toBe(false);
    expect(await rowsOf(account.uid)).toMatchObject({ conversations: 2, messages: 6 });
    // And it can be deleted once the database is back.
    await deleteAccount(db, { uid: account.uid, email: account.email });
    expect(await rowsOf(account.uid)).toMatchObject({ conversations: 0, messages: 0 });
  });
});
