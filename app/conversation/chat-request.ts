import { z } from "zod";
import { isStorableText, storableString, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { DEFAULT_MESSAGE_MAX_CHARS, messageTooLongText } from "~/settings/chat-limits";
import { toolsOffSchema } from "./chat-tools";

/**
 * The body of POST /api/chat, shared by the browser (which builds it) and the
 * endpoint (which validates it). The server keeps the conversation's history:
 * a request carries only the message to answer, and anything else (a forged
 * history, unknown fields) is refused. The message is new (after `parentId`:
 * an edit is a new message beside the one it replaces), or one the user sent
 * before, with the same text: answered again (regenerate, or Retry after a failure).
 */
// Defined without zod in ./chat-limits so that the browser can import them alone.
export { MAX_MESSAGE_LENGTH } from "~/settings/chat-limits";

/** A message for a value of the wrong type; zod's own wording (e.g. for unknown keys) otherwise. */
function onlyForWrongType(message: string) {
  return (issue: { code?: string }) => (issue.code === "invalid_type" ? message : undefined);
}

const userMessageSchema = z.strictObject(
  {
    id: z.uuid({ error: "The message id must be a UUID." }),
    role: z.literal("user", { error: "Only your own message can be sent." }),
    parts: z
      // No NUL byte or lone surrogate: such text could not be stored, so it is refused before the model is asked.
      .array(z.strictObject({ type: z.literal("text"), text: storableString() }), {
        error: "The message must be a list of text parts.",
      })
      .length(1, { error: "The message must have exactly one text part." }),
  },
  { error: onlyForWrongType("The message is missing or malformed.") },
);

/** The most ids a request may name at all; a role's own limit (ATTACHMENTS_PER_MESSAGE) is checked by the endpoint. */
const ATTACHMENT_IDS_MAX = 50;

export const chatRequestSchema = z
  .strictObject(
    {
      conversationId: z.uuid({ error: "The conversation id must be a UUID." }),
      /** A new chat: create the conversation (with its first exchange) if it does not exist yet. */
      create: z.boolean().default(false),
      /**
       * A new chat that is temporary (docs/decisions/085): not listed, not kept
       * once its page is left. Read only with `create`.
       */
      temporary: z.boolean({ error: "temporary must be true or false." }).optional(),
      /**
       * A new chat started in one of the user's projects (docs/decisions/106):
       * it follows the project's instructions. Read only with `create`; never
       * with `temporary`.
       */
      projectId: z.uuid({ error: "The project id must be a UUID." }).optional(),
      /** A new chat opened from a prompt tool: the tool's instructions become the conversation's. */
      toolId: z
        .string({ error: "The tool id must be text." })
        .min(1)
        .max(200)
        .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE })
        .optional(),
      message: userMessageSchema,
      /**
       * The message this one follows: a reply of any branch, or null for a first
       * message (docs/decisions/069). Left out: after the branch shown.
       */
      parentId: z.uuid({ error: "The parent id must be a UUID or null." }).nullable().optional(),
      // Stored with the conversation; a NUL or lone surrogate is refused like in the message.
      model: z
        .string({ error: "Choose a model." })
        .min(1, { error: "Choose a model." })
        .max(200)
        .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE }),
      /** Files uploaded for this message (POST /api/attachments), in the order shown. */
      attachments: z
        .array(z.uuid({ error: "An attachment id must be a UUID." }), {
          error: "The attachments must be a list of ids.",
        })
        .max(ATTACHMENT_IDS_MAX, { error: `At most ${ATTACHMENT_IDS_MAX} files can be sent with a message.` })
        .optional(),
      /**
       * The tools switched off for this chat in the composer's menu (./chat-tools.ts):
       * they narrow this reply with the chat's stored choice, and become that choice.
       * Left out: the stored choice alone.
       */
      toolsOff: toolsOffSchema.optional(),
      /** The browser's IANA time zone, for the date and time tool. */
      timeZone: storableString().max(64).optional(),
    },
    { error: onlyForWrongType("The request must be a JSON object.") },
  )
  .superRefine((request, context) => {
    // Runs after non-fatal issues too (e.g. no text part): check only what is there.
    const text = request.message?.parts?.[0]?.text;
    if (typeof text !== "string") return;
    if (text.trim() === "") context.addIssue({ code: "custom", message: "The message is empty." });
  });

export type ChatRequest = z.infer<typeof chatRequestSchema>;

export type ParsedChatRequest = { ok: true; request: ChatRequest } | { ok: false; error: string };

/** `maxChars`: the sender's cap on the message's length (MESSAGE_MAX_CHARS for their role). */
export function parseChatRequest(body: unknown, maxChars = DEFAULT_MESSAGE_MAX_CHARS): ParsedChatRequest {
  const parsed = chatRequestSchema.safeParse(body);
  if (parsed.success) {
    const { length } = parsed.data.message.parts[0].text;
    if (length > maxChars) return { ok: false, error: messageTooLongText(length, maxChars) };
    return { ok: true, request: parsed.data };
  }
  const issue = parsed.error.issues[0];
  if (issue.code === "unrecognized_keys") {
    return {
      ok: false,
      error: `The request has fields the chat endpoint doesn't accept (${issue.keys.join(", ")}). The server keeps the conversation's history: send only the new message.`,
    };
  }
  const where = issue.path.length > 0 && issue.code !== "custom" ? ` (${issue.path.join(".")})` : "";
  return { ok: false, error: `${issue.message}${where}` };
}
