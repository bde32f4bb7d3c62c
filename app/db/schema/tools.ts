import { sql } from "drizzle-orm";
import { boolean, check, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * Prompt tools defined by admins (the built-in ones live in code:
 * app/data/prompt-tools.server.ts). They are the product's catalogue, not
 * any user's data, so they carry no uid: deleting an admin's account leaves
 * the tools they wrote in place.
 */

export const PROMPT_FIELD_KINDS = ["line", "text"] as const;
export type PromptFieldKind = (typeof PROMPT_FIELD_KINDS)[number];

/** One input of a prompt tool's form: a single line or a multi-line text. */
export interface PromptToolField {
  label: string;
  kind: PromptFieldKind;
  required: boolean;
  /** A short example shown under the input. */
  hint?: string;
}

export const promptTools = pgTable(
  "prompt_tools",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    systemPrompt: text("system_prompt").notNull(),
    inputFields: jsonb("input_fields").$type<PromptToolField[]>().notNull(),
    /** A disabled tool is hidden from everyone but admins and cannot be opened. */
    enabled: boolean("enabled").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Two tools with one name would be indistinguishable in the catalogue.
    uniqueIndex("prompt_tools_name_idx").on(sql`lower(${t.name})`),
    check("prompt_tools_fields_check", sql`jsonb_typeof(${t.inputFields}) = 'array'`),
  ],
);

export type PromptToolRow = typeof promptTools.$inferSelect;
