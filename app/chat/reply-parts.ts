import type { UIMessageChunk } from "ai";
import type { ChatMessage } from "~/conversation/message-types";

type Part = ChatMessage["parts"][number];

function isToolPart(part: Part): part is Extract<Part, { toolCallId: string }> {
  return "toolCallId" in part;
}

/**
 * A reply's parts as they are stored. A stopped reply can end mid-way: a tool
 * call without its result would make the next request to the model fail
 * (every call needs a result), and an empty text part says nothing. Those
 * are dropped, and texts still marked as streaming are closed. How far a tool
 * had got while it ran says nothing once the reply is over: it is not kept.
 */
export function settleParts(parts: ChatMessage["parts"]): ChatMessage["parts"] {
  return parts.flatMap((part): Part[] => {
    if (isToolPart(part)) {
      return part.state === "output-available" || part.state === "output-error" ? [part] : [];
    }
    if (part.type === "text" || part.type === "reasoning") {
      return part.text === "" ? [] : [{ ...part, state: "done" }];
    }
    return part.type === "data-tool-progress" ? [] : [part];
  });
}

/** Chunks that frame a reply but show none of it. */
const FRAME_CHUNKS: ReadonlySet<string> = new Set([
  "start",
  "start-step",
  "finish-step",
  "finish",
  "text-start",
  "text-end",
  "reasoning-start",
  "reasoning-end",
  "message-metadata",
  "error",
  "abort",
]);

/** Whether a chunk shows some of the reply (text, a tool step), not only its frame or our own data parts. */
export function showsContent(chunk: UIMessageChunk): boolean {
  if (chunk.type === "text-delta") return chunk.delta !== "";
  if (chunk.type.startsWith("data-")) return false;
  return !FRAME_CHUNKS.has(chunk.type);
}

/** The last state of a stream of message states (e.g. readUIMessageStream's): the whole reply. */
export async function lastMessage(messages: AsyncIterable<ChatMessage>): Promise<ChatMessage | undefined> {
  let last: ChatMessage | undefined;
  for await (const message of messages) last = message;
  return last;
}
