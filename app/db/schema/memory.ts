import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { roleSwitchTable } from "./api";

/**
 * What the assistant remembers about a user across chats (docs/decisions/103):
 * short facts, saved by the model with its `remember` tool in a conversation
 * or added by the user on their memory page. Bounded per user and in length
 * (app/data/memory-rules.ts). Memories belong to the account as a whole; a
 * narrower scope (a project) would be one more nullable column and filter.
 */
export const memories = pgTable(
  "memories",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    uid: text("uid").notNull(),
    text: text("text").notNull(),
    /** Who wrote it: the model (in `conversationId`) or the user by hand. */
    source: text("source", { enum: ["model", "user"] }).notNull(),
    /**
     * The chat the model saved it in. No foreign key: a new chat's row is
     * written only with its first exchange, after the tool ran; a reader
     * joins it and shows the link only while the chat exists.
     */
    conversationId: uuid("conversation_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // Newest first; NULLS FIRST as ORDER BY … DESC reads it (docs/decisions/102).
  (t) => [index("memories_uid_idx").on(t.uid, t.updatedAt.desc().nullsFirst())],
);

export type MemoryRow = typeof memories.$inferSelect;

/**
 * The admins' choice of memory per role (docs/decisions/105): a row says
 * whether users of that role have memory; a role without a row falls back to
 * MEMORY_ROLES. Read fresh on every check, so a change applies at once on
 * every instance.
 */
export const memoryRoleAccess = roleSwitchTable("memory_role_access");
