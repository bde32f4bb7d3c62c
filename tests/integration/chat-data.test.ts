import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  messageContains,
  renameConversation,
} from "~/data/conversations.server";
import {
  getConversationWithMessages,
  saveExchange,
  showBranch,
  shownBranch,
  type Exchange,
} from "~/data/messages.server";
import {
  getCustomInstructions,
  getEnabledToolIds,
  setCustomInstructions,
  setToolEnabled,
  UnknownToolError,
} from "~/data/preferences.server";
import { getQuotaStatus, markUnsettled, refundMessage, reserveMessage } from "~/data/quotas.server";
import { getUsageByDay } from "~/data/usage.server";
import { openDatabase, type Db } from "~/db/client.server";
import { messages } from "~/db/schema";
import { testDatabases } from "../support/databases";

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

describe.each(testDatabases())("assistant data on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  describe("quotas", () => {
    it("50 concurrent sends against a limit of 20 reserve exactly 20", async () => {
      const uid = `quota-${randomUUID()}`;
      const results = await Promise.all(Array.from({ length: 50 }, () => reserveMessage(db, uid, 20)));
      expect(results.filter((result) => result.allowed)).toHaveLength(20);
      expect(
        results
          .filter((result) => result.allowed)
          .map((result) => result.used)
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await getQuotaStatus(db, uid, "")).toMatchObject({ used: 20, limit: 20, remaining: 0 });
    });

    it("a refund gives one back; unlimited roles are counted but never refused", async () => {
      const uid = `quota-${randomUUID()}`;
      const first = await reserveMessage(db, uid, 1);
      expect(first.allowed).toBe(true);
      expect((await reserveMessage(db, uid, 1)).allowed).toBe(false);
      await refundMessage(db, first);
      expect((await reserveMessage(db, uid, 1)).allowed).toBe(true);

      const admin = `quota-${randomUUID()}`;
      const many = await Promise.all(Array.from({ length: 30 }, () => reserveMessage(db, admin, null)));
      expect(many.every((result) => result.allowed && result.remaining === null)).toBe(true);
      expect((await getQuotaStatus(db, admin, { role: "admin", isAdmin: true })).used).toBe(30);
    });

    it("resets at UTC midnight: a new day starts from zero and says when it resets", async () => {
      const uid = `quota-${randomUUID()}`;
      const lateToday = new Date("2030-05-01T23:59:00Z");
      const tomorrow = new Date("2030-05-02T00:00:01Z");
      expect((await reserveMessage(db, uid, 1, { now: lateToday })).allowed).toBe(true);
      const refused = await reserveMessage(db, uid, 1, { now: lateToday });
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      expect(refused.resetsAt.toISOString()).toBe("2030-05-02T00:00:00.000Z");
      const next = await reserveMessage(db, uid, 1, { now: tomorrow });
      expect(next).toMatchObject({ allowed: true, day: "2030-05-02", used: 1 });
      expect(next.resetsAt.toISOString()).toBe("2030-05-03T00:00:00.000Z");
    });

    it("a message's reservation: a Retry reuses it, saving settles it, a refund gives it back once, a stale one is reclaimed", async () => {
      const uid = `quota-${randomUUID()}`;
      const conversation = await createConversation(db, { uid });
      const sent = exchange(uid, conversation.id, "Hello");
      const messageId = sent.user.id;
      const first = await reserveMessage(db, uid, 2, { messageId });
      expect(first).toMatchObject({ allowed: true, used: 1 });
      // While its reply is in flight, the same message is refused, uncounted (ADR 044: one message, one reply).
      expect(await reserveMessage(db, uid, 2, { messageId })).toMatchObject({ allowed: false, inFlight: true });
      expect((await getQuotaStatus(db, uid, "")).used).toBe(1);
      // The first attempt failed and its refund could not be written: the Retry reuses the reservation.
      markUnsettled(first);
      expect(await reserveMessage(db, uid, 2, { messageId })).toMatchObject({
        allowed: true,
        inFlight: false,
        used: 1,
        remaining: 1,
      });
      await saveExchange(db, sent);
      expect((await getQuotaStatus(db, uid, "")).used).toBe(1);
      // Stored: answering it again (regenerate) is a new message for the quota, and a refund of it gives back one only.
      const regenerate = await reserveMessage(db, uid, 2, { messageId });
      expect(regenerate).toMatchObject({ allowed: true, used: 2 });
      await refundMessage(db, regenerate);
      await refundMessage(db, regenerate);
      expect((await getQuotaStatus(db, uid, "")).used).toBe(1);

      // A reservation whose server died: held during its lease, given back after it.
      const lost = await reserveMessage(db, uid, 2);
      expect(lost.used).toBe(2);
      expect((await reserveMessage(db, uid, 2)).allowed).toBe(false);
      await db.execute(
        sql`update quota_reservations set reserved_at = now() - interval '16 minutes' where message_id = ${lost.messageId}::uuid`,
      );
      expect(await reserveMessage(db, uid, 2)).toMatchObject({ allowed: true, used: 2 });
    });

    it("a limit of 0 refuses without counting", async () => {
      const uid = `quota-${randomUUID()}`;
      expect((await reserveMessage(db, uid, 0)).allowed).toBe(false);
      expect((await getQuotaStatus(db, uid, "")).used).toBe(0);
    });
  });

  describe("conversations and messages", () => {
    it("stores an exchange atomically with tokens per day, and finds it only for its owner", async () => {
      const uid = `user-${randomUUID()}`;
      const conversation = await createConversation(db, { uid });
      expect(conversation.title).toBeNull();
      const saved = await saveExchange(db, exchange(uid, conversation.id, "Hello"));
      expect(saved).toEqual({ title: "Hello" });

      const found = await getConversationWithMessages(db, uid, conversation.id);
      expect(found?.messages.map((m) => [m.role, m.content, m.status])).toEqual([
        ["user", "Hello", null],
        ["assistant", "Re: Hello", "completed"],
      ]);
      expect(found?.conversation.model).toBe("test-model");
      expect(await getConversationWithMessages(db, "someone-else", conversation.id)).toBeNull();
      expect(await getConversation(db, "someone-else", conversation.id)).toBeNull();

      const [today] = (await getUsageByDay(db, uid, 1)).slice(-1);
      expect(today).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    });

    it("keeps the first title, and nothing is stored for a deleted conversation or another user's", async () => {
      const uid = `user-${randomUUID()}`;
      const conversation = await createConversation(db, { uid });
      await saveExchange(db, exchange(uid, conversation.id, "First title"));
      expect(await saveExchange(db, exchange(uid, conversation.id, "Second"))).toEqual({ title: "First title" });
      expect(await saveExchange(db, exchange("intruder", conversation.id, "Mine now"))).toBeNull();
      expect(await deleteConversation(db, uid, conversation.id)).toBe(true);
      expect(await saveExchange(db, exchange(uid, conversation.id, "Too late"))).toBeNull();
      expect(await getConversationWithMessages(db, uid, conversation.id)).toBeNull();
    });

    it("regenerate and edit keep the earlier versions as branches; the new one is shown", async () => {
      const uid = `user-${randomUUID()}`;
      const conversation = await createConversation(db, { uid });
      const first = exchange(uid, conversation.id, "Question");
      await saveExchange(db, first);
      const regenerated = exchange(uid, conversation.id, "Question", { kind: "regenerate", user: first.user });
      await saveExchange(db, regenerated);
      const edited = exchange(uid, conversation.id, "Question, edited", { parentId: null });
      await saveExchange(db, edited);
      const found = await getConversationWithMessages(db, uid, conversation.id);
      expect(found?.messages.map((m) => [m.content, m.parentId])).toEqual([
        ["Question", null],
        ["Re: Question", first.user.id],
        ["Re: Question", first.user.id],
        ["Question, edited", null],
        ["Re: Question, edited", edited.user.id],
      ]);
      expect(found?.conversation.currentLeafId).toBe(edited.reply.id);
      expect(shownBranch(found!.conversation, found!.messages).map((m) => m.id)).toEqual([
        edited.user.id,
        edited.reply.id,
      ]);
      // Showing the first version again: its latest reply (the regenerated one).
      expect(await showBranch(db, uid, conversation.id, first.user.id)).toBe(true);
      const back = await getConversationWithMessages(db, uid, conversation.id);
      expect(shownBranch(back!.conversation, back!.messages).map((m) => m.id)).toEqual([
        first.user.id,
        regenerated.reply.id,
      ]);
      // Another user's conversation, or a message not in it: nothing changes.
      expect(await showBranch(db, "intruder", conversation.id, first.user.id)).toBe(false);
      expect(await showBranch(db, uid, conversation.id, randomUUID())).toBe(false);
      // A parent that is not a reply of this conversation stores nothing.
      expect(await saveExchange(db, exchange(uid, conversation.id, "Lost", { parentId: randomUUID() }))).toBeNull();
      expect(await saveExchange(db, exchange(uid, conversation.id, "Lost", { parentId: first.user.id }))).toBeNull();
    });

    it("lists the newest first and searches titles and message text, with wildcards taken literally", async () => {
      const uid = `user-${randomUUID()}`;
      const older = await createConversation(db, { uid, title: "Budget 100% done" });
      await saveExchange(db, exchange(uid, older.id, "numbers"));
      const newer = await createConversation(db, { uid });
      await saveExchange(db, exchange(uid, newer.id, "Where is the Eiffel tower?"));
      await createConversation(db, { uid: "someone-else", title: "Eiffel plans" });

      expect((await listConversations(db, uid)).map((c) => c.id)).toEqual([newer.id, older.id]);
      expect((await listConversations(db, uid, { search: "eiffel" })).map((c) => c.id)).toEqual([newer.id]);
      expect((await listConversations(db, uid, { search: "Re: numbers" })).map((c) => c.id)).toEqual([older.id]);
      expect((await listConversations(db, uid, { search: "100%" })).map((c) => c.id)).toEqual([older.id]);
      expect(await listConversations(db, uid, { search: "1_0" })).toEqual([]);
      expect(await listConversations(db, uid, { search: "e%r" })).toEqual([]); // a wildcard would match "Where…"
    });

    it("finds part of a word in any case, and the trigram index can serve the match (docs/decisions/102)", async () => {
      const uid = `user-${randomUUID()}`;
      const chat = await createConversation(db, { uid, title: "Flowers" });
      await saveExchange(db, exchange(uid, chat.id, "Is HELIOTROPE scented?"));
      for (const search of ["heliotrope", "Heliotrope", "liotro", "scented?", "ope sc"]) {
        expect((await listConversations(db, uid, { search })).map((c) => c.id)).toEqual([chat.id]);
      }
      expect(await listConversations(db, uid, { search: "heliotropes" })).toEqual([]);

      // With sequential scans priced out, the messages holding a word are found through the index:
      // the search does not have to read every message.
      const query = db.select({ id: messages.conversationId }).from(messages).where(messageContains("heliotrope"));
      const plan = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const { rows } = await tx.execute<{ "QUERY PLAN": string }>(sql`explain ${query}`);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan).toContain("messages_content_trgm_idx");
    });

    it("a new chat's conversation is created with its first exchange, never on another's id; rename and delete are the owner's", async () => {
      const uid = `user-${randomUUID()}`;
      const id = randomUUID();
      const create = { systemPrompt: "Summarize the text.", customInstructions: "Be brief.", title: "Summarize" };
      expect(await saveExchange(db, exchange(uid, id, "Hello", { create }))).toEqual({ title: "Summarize" });
      expect(await getConversation(db, uid, id)).toMatchObject({
        systemPrompt: "Summarize the text.",
        customInstructions: "Be brief.",
        model: "test-model",
      });
      // The same id again (a second tab's first send): appended to the stored conversation, nothing replaced.
      expect(await saveExchange(db, exchange(uid, id, "Again", { create: { ...create, title: "Other" } }))).toEqual({
        title: "Summarize",
      });
      expect((await getConversationWithMessages(db, uid, id))?.messages).toHaveLength(4);
      // Another user cannot take the id: nothing is stored for them.
      expect(await saveExchange(db, exchange("intruder", id, "Mine now", { create }))).toBeNull();
      expect(await getConversation(db, "intruder", id)).toBeNull();
      expect(await renameConversation(db, "intruder", id, "Hijacked")).toBe(false);
      expect(await deleteConversation(db, "intruder", id)).toBe(false);
      expect(await renameConversation(db, uid, id, "Mine")).toBe(true);
      expect((await getConversation(db, uid, id))?.title).toBe("Mine");
    });

    it("a reply stopped before anything was shown is stored but gives its quota unit back", async () => {
      const uid = `quota-${randomUUID()}`;
      const stopped = exchange(uid, randomUUID(), "Stop me", {
        create: { systemPrompt: null, customInstructions: null, title: null },
      });
      const reservation = await reserveMessage(db, uid, 5, { messageId: stopped.user.id });
      expect(reservation).toMatchObject({ allowed: true, used: 1 });
      const saved = await saveExchange(db, {
        ...stopped,
        reply: { ...stopped.reply, parts: [], content: "", status: "stopped" },
        refund: true,
      });
      expect(saved).not.toBeNull();
      expect(await getQuotaStatus(db, uid, "")).toMatchObject({ used: 0 });
      expect((await getConversationWithMessages(db, uid, stopped.conversationId))?.messages.map((m) => m.role)).toEqual(
        ["user", "assistant"],
      );
      // Without a refund (something was shown) the unit stays used.
      const shown = exchange(uid, stopped.conversationId, "Shown");
      await reserveMessage(db, uid, 5, { messageId: shown.user.id });
      await saveExchange(db, { ...shown, reply: { ...shown.reply, status: "stopped" } });
      expect(await getQuotaStatus(db, uid, "")).toMatchObject({ used: 1 });
    });

    it("a conversation for a prompt tool keeps its instructions and title", async () => {
      const uid = `user-${randomUUID()}`;
      const conversation = await createConversation(db, {
        uid,
        title: "Summarize",
        systemPrompt: "Summarize the text.",
        customInstructions: "",
      });
      expect(conversation).toMatchObject({
        title: "Summarize",
        systemPrompt: "Summarize the text.",
        customInstructions: null,
      });
    });
  });

  describe("usage and preferences", () => {
    it("usage by day covers the asked days, zero-filled, oldest first", async () => {
      const uid = `user-${randomUUID()}`;
      await reserveMessage(db, uid, null, { now: new Date() });
      await reserveMessage(db, uid, null, { now: new Date(Date.now() - 2 * 86_400_000) });
      const days = await getUsageByDay(db, uid, 3);
      expect(days.map((day) => day.messages)).toEqual([1, 0, 1]);
      expect(days[2].day).toBe(new Date().toISOString().slice(0, 10));
    });

    it("custom instructions and function tool switches are kept per user", async () => {
      const uid = `user-${randomUUID()}`;
      expect(await getCustomInstructions(db, uid)).toBe("");
      await setCustomInstructions(db, uid, "  Be brief.  ");
      expect(await getCustomInstructions(db, uid)).toBe("Be brief.");
      expect(await getEnabledToolIds(db, uid)).toEqual(["calculator", "current_datetime", "convert_units"]);
      await setToolEnabled(db, uid, "calculator", false);
      expect(await getEnabledToolIds(db, uid)).toEqual(["current_datetime", "convert_units"]);
      await setToolEnabled(db, uid, "calculator", true);
      expect(await getEnabledToolIds(db, uid)).toEqual(["calculator", "current_datetime", "convert_units"]);
      await expect(setToolEnabled(db, uid, "shell", true)).rejects.toBeInstanceOf(UnknownToolError);
    });
  });
});
