import { randomUUID } from "node:crypto";
import { chunkDocument } from "~/attachments/chunks";
import type { NewAttachment } from "~/data/attachments.server";

/** A text file as the upload route hands it to the data layer: its bytes, its text and its passages. */
export function textFile(uid: string, text: string, name = "notes.txt"): NewAttachment {
  const extracted = { text, segments: [{ text }] };
  return {
    id: randomUUID(),
    uid,
    name,
    kind: "text",
    mediaType: "text/plain",
    bytes: new TextEncoder().encode(text),
    text,
    chunks: chunkDocument(extracted),
  };
}
