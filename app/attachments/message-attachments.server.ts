import type { SignedIn } from "~/auth/session.server";
import type { AttachmentRow } from "~/data/attachments.server";
import type { ModelOption } from "~/llm/models.server";
import type { AttachmentRef } from "~/conversation/attachment-types";
import { attachmentLimitsFor } from "./limits.server";

/**
 * Whether the files a chat message names may go with it: the sender's own,
 * not sent with another message, within the role's files-per-message limit,
 * and no image for a model that cannot see images (the composer says so
 * before sending; this is the server's word). Refused before anything is counted.
 */
export function checkAttachments(
  ids: readonly string[],
  rows: readonly AttachmentRow[],
  {
    messageId,
    model,
    session,
    visionModels,
  }: { messageId: string; model: ModelOption; session: SignedIn; visionModels: ModelOption[] },
): { ok: true; files: AttachmentRef[] } | { ok: false; error: string } {
  const { perMessage } = attachmentLimitsFor(session);
  if (perMessage === 0)
    return { ok: false, error: "Your plan doesn't include sending files. Remove them to send your message." };
  if (ids.length > perMessage) {
    return {
      ok: false,
      error: `You can send at most ${perMessage} file${perMessage === 1 ? "" : "s"} with a message; this one has ${ids.length}.`,
    };
  }
  const byId = new Map(rows.map((row) => [row.id, row]));
  const files: AttachmentRef[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    // Another user's file looks like one that does not exist.
    if (!row) return { ok: false, error: "One of your files isn't available any more. Remove it and attach it again." };
    if (row.messageId !== null && row.messageId !== messageId) {
      return {
        ok: false,
        error: `"${row.name}" was already sent with another message. Attach it again to send it with this one.`,
      };
    }
    files.push({
      id: row.id,
      name: row.name,
      kind: row.kind,
      mediaType: row.mediaType,
      size: row.size,
      pages: row.pages,
    });
  }
  if (!model.vision && files.some((file) => file.kind === "image")) {
    const others = visionModels.map((option) => option.label).join(", ");
    return {
      ok: false,
      error: `${model.label} can't see images. ${others ? `Choose a model that can (${others}), or remove the image.` : "Remove the image to send your message."}`,
    };
  }
  return { ok: true, files };
}
