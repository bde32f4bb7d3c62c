import { z } from "zod";
import type { Db } from "~/db/client.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { deleteInboxMessages, setInboxStatus } from "./inbox.server";

/**
 * The inbox's input: the body cap of its two doors (the contact form and
 * reports) and the admins' actions on messages. Reading bodies and answering
 * forms is app/http/forms.server.ts; the hourly limits are app/data/rate-limits.server.ts.
 */

/** Far above any valid message (5,000 characters of 4-byte text is 20 KB). */
export const MAX_INBOX_BODY_BYTES = BODY_LIMITS.message;

// ---- admins acting on messages (list and detail pages) ----------------------

export const INBOX_INTENTS = ["mark-read", "mark-unread", "archive", "unarchive", "delete"] as const;
export type InboxIntent = (typeof INBOX_INTENTS)[number];

/** One bulk action at most on this many messages (a page is 25). */
const MAX_SELECTION = 100;

export const inboxActionSchema = z.object({
  intent: z.enum(INBOX_INTENTS, { error: "Choose what to do with the selected messages." }),
  ids: z.preprocess(
    (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
    z
      .array(z.uuid("That message does not exist."))
      .min(1, "Select at least one message first.")
      .max(MAX_SELECTION, `Select at most ${MAX_SELECTION} messages at a time.`),
  ),
  // Deleting cannot be undone: the first request only asks for confirmation.
  confirm: z.literal("yes").optional(),
});

export type InboxAction = z.infer<typeof inboxActionSchema>;

export type InboxActionResult =
  { ok: true; intent: InboxIntent; count: number; notice: string } | { confirmDelete: string[] };

const DONE: Record<InboxIntent, string> = {
  "mark-read": "marked read",
  "mark-unread": "marked unread",
  archive: "archived",
  unarchive: "moved back to the inbox",
  delete: "deleted",
};

const STATUS_FOR = { "mark-read": "read", "mark-unread": "new", archive: "archived", unarchive: "read" } as const;

export async function runInboxAction(db: Db, action: InboxAction): Promise<InboxActionResult> {
  if (action.intent === "delete" && action.confirm !== "yes") return { confirmDelete: action.ids };
  const count =
    action.intent === "delete"
      ? await deleteInboxMessages(db, action.ids)
      : await setInboxStatus(db, action.ids, STATUS_FOR[action.intent]);
  const noun = count === 1 ? "1 message" : `${count} messages`;
  return { ok: true, intent: action.intent, count, notice: `${noun} ${DONE[action.intent]}.` };
}
