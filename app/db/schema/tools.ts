import { sql } from "drizzle-orm";
import { boolean, check, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * Prompt tools defined by admins (the built-in ones live in code:
 * app/data/prompt-tools/built-in-tools.server.ts). They are the product's catalogue, not
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

/**
 * An admin's changes to a built-in prompt tool, by its slug. The defaults stay
 * in code (app/data/prompt-tools/built-in-tools.server.ts): a row with null content only
 * hides or shows the tool, and "Reset to default" nulls the content again.
 * Content is all set or all null, so a half-edited tool cannot exist.
 */
export const promptToolOverrides = pgTable(
  "prompt_tool_overrides",
  {
    toolId: text("tool_id").primaryKey(),
    name: text("name"),
    description: text("description"),
    category: text("category"),
    systemPrompt: text("system_prompt"),
    inputFields: jsonb("input_fields").$type<PromptToolField[]>(),
    /** A hidden built-in is hidden from everyone but admins, as a disabled admin tool is. */
    enabled: boolean("enabled").notNull().default(true),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [
    check(
      "prompt_tool_overrides_content_check",
      sql`(name is null and description is null and category is null and system_prompt is null and input_fields is null)
        or (name is not null and description is not null and category is not null and system_prompt is not null
            and jsonb_typeof(input_fields) = 'array')`,
    ),
  ],
);

export type PromptToolOverrideRow = typeof promptToolOverrides.$inferSelect;
