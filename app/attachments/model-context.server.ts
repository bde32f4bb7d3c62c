import type { FilePart, TextPart } from "ai";
import type { ChatMessage } from "~/conversation/message-types";
import { attachmentContents, firstPassages, searchPassages, type FoundPassage } from "~/data/attachments.server";
import type { Db } from "~/db/client.server";
import { formatBytes, type AttachmentRef, type SourcePassage } from "~/conversation/attachment-types";
import { describeLocation } from "./chunks";
import { embeddingsEnabled, embedQuestion } from "./embeddings.server";

/**
 * What the model is given of a conversation's attachments (docs/decisions/071):
 *
 * - images, as image parts of the message they came with, when the model
 *   takes images (LLM_VISION_MODELS); otherwise a note that one was attached;
 * - documents, whole when all of the branch's documents together are short;
 *   otherwise the passages that best answer the latest message, found by
 *   PostgreSQL full-text search, go with that message, numbered so the model
 *   can cite them; whole documents are numbered the same way — and the
 *   reply lists the ones it cites as its Sources (docs/decisions/084).
 *
 * A conversation without attachments costs nothing here: no query is made.
 */

/** Documents up to this many characters together are sent whole (~8,000 tokens). */
export const WHOLE_DOCUMENTS_MAX_CHARS = 32_000;
/** Passages retrieved for a question about long documents. */
export const PASSAGES_PER_QUESTION = 8;
/** Images sent to the model, the most recent first: a long conversation's early ones are named only. */
const MAX_IMAGES = 10;
/** How much of a whole document a Source shows. */
const SOURCE_PREVIEW_CHARS = 4_000;

export interface AttachmentContext {
  /** The history to convert, the latest message carrying any retrieved passages. */
  history: ChatMessage[];
  convertDataPart: (part: { type: string; data: unknown }) => TextPart | FilePart | undefined;
  /** What the reply was given to answer from, shown under it as its Sources. */
  sources: SourcePassage[];
}

export function attachmentsOf(message: Pick<ChatMessage, "parts">): AttachmentRef[] {
  return message.parts.flatMap((part) => (part.type === "data-attachment" ? [part.data as AttachmentRef] : []));
}

export async function attachmentContext(
  db: Db,
  uid: string,
  history: ChatMessage[],
  vision: boolean,
): Promise<AttachmentContext> {
  const refs = history.filter((message) => message.role === "user").flatMap(attachmentsOf);
  if (refs.length === 0) return { history, convertDataPart: () => undefined, sources: [] };

  // Asked at once, beside the read below: it is on the way to the first token.
  const documentCount = refs.filter((ref) => ref.kind !== "image").length;
  const latestText = textOf(history.at(-1));
  const questionVector =
    documentCount > 0 && embeddingsEnabled() ? embedQuestion(latestText) : Promise.resolve(undefined);
  const images = vision ? refs.filter((ref) => ref.kind === "image").slice(-MAX_IMAGES) : [];
  const documents = refs.filter((ref) => ref.kind !== "image");
  const contents = await attachmentContents(
    db,
    uid,
    [...images, ...documents].map((ref) => ref.id),
    WHOLE_DOCUMENTS_MAX_CHARS,
  );
  const totalChars = documents.reduce((sum, ref) => sum + (contents.get(ref.id)?.chars ?? 0), 0);
  const whole = totalChars <= WHOLE_DOCUMENTS_MAX_CHARS;
  const names = new Map(refs.map((ref) => [ref.id, ref.name]));

  let sources: SourcePassage[] = [];
  let latest = history;
  if (documents.length > 0 && whole) {
    sources = documents.flatMap((ref) => {
      const text = contents.get(ref.id)?.text;
      return text === undefined
        ? []
        : [
            {
              attachmentId: ref.id,
              name: ref.name,
              location: "whole document",
              text: text.slice(0, SOURCE_PREVIEW_CHARS),
            },
          ];
    });
    latest = withCitationNote(history, sources);
  } else if (documents.length > 0) {
    const question = latestText;
    const ids = documents.map((ref) => ref.id);
    let found = await searchPassages(db, uid, ids, question, PASSAGES_PER_QUESTION, await questionVector);
    // A question with no word to search for ("summarise this"): the documents' beginnings.
    if (found.length === 0) found = await firstPassages(db, uid, ids, PASSAGES_PER_QUESTION);
    sources = found.map((passage) => toSource(passage, names.get(passage.attachmentId) ?? "document"));
    latest = withPassages(history, sources);
  }

  const sentImages = new Set(images.map((ref) => ref.id));
  // A whole document is numbered as its Source is, so the reply can cite it ([1]) like a passage.
  const numbers = new Map(sources.map((source, index) => [source.attachmentId, index + 1]));
  return {
    history: latest,
    sources,
    convertDataPart(part) {
      if (part.type !== "data-attachment") return undefined;
      const ref = part.data as AttachmentRef;
      const content = contents.get(ref.id);
      if (ref.kind === "image") {
        if (sentImages.has(ref.id) && content?.bytes)
          return { type: "file", data: new Uint8Array(content.bytes), mediaType: ref.mediaType, filename: ref.name };
        return { type: "text", text: `[Image attached: ${ref.name}${vision ? "" : " — this model can't see images"}]` };
      }
      if (whole && content?.text !== undefined)
        return {
          type: "text",
          text: `<document number="${numbers.get(ref.id)}" name="${ref.name}">\n${content.text}\n</document>`,
        };
      const size = ref.pages ? `${ref.pages} pages` : formatBytes(ref.size);
      return {
        type: "text",
        text: `[Document attached: ${ref.name} (${size}); the passages that answer the latest question are given with it]`,
      };
    },
  };
}

function toSource(passage: FoundPassage, name: string): SourcePassage {
  const where = {
    pageFrom: passage.pageFrom ?? undefined,
    pageTo: passage.pageTo ?? undefined,
    lineFrom: passage.lineFrom ?? undefined,
    lineTo: passage.lineTo ?? undefined,
  };
  return { attachmentId: passage.attachmentId, name, location: describeLocation(where), text: passage.text };
}

/** The latest message, with the passages numbered after its own text. */
function withPassages(history: ChatMessage[], sources: SourcePassage[]): ChatMessage[] {
  if (sources.length === 0) return history;
  const last = history.at(-1)!;
  const text = [
    "Passages from the attached documents that may answer this (cite them by number, e.g. [1]; say so if they don't answer it):",
    ...sources.map((source, index) => `[${index + 1}] ${source.name}, ${source.location}:\n${source.text}`),
  ].join("\n\n");
  return [...history.slice(0, -1), { ...last, parts: [...last.parts, { type: "text", text }] }];
}

/**
 * The latest message, with a note to cite the whole documents by number: the
 * reply lists as its Sources only what it cites (docs/decisions/084).
 */
function withCitationNote(history: ChatMessage[], sources: SourcePassage[]): ChatMessage[] {
  if (sources.length === 0) return history;
  const last = history.at(-1)!;
  const text =
    "The attached documents are numbered (<document number=…>): when the answer uses one, cite it by its number, e.g. [1].";
  return [...history.slice(0, -1), { ...last, parts: [...last.parts, { type: "text", text }] }];
}

function textOf(message: ChatMessage | undefined): string {
  return message?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n") ?? "";
}
