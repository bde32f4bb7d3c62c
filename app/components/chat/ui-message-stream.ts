import type { UIMessageChunk } from "ai";
import type { ChatMessage } from "~/conversation/message-types";

/**
 * Reading the chat endpoint's reply in the browser: the AI SDK's UI message
 * stream (server-sent events, one JSON chunk each, the server writes it with
 * the SDK) folded into the reply message, as the SDK's own reader does. The
 * SDK's reader validates every chunk with zod, which would put ~30 KB of zod
 * (gzip) and the SDK's ~25 KB on the assistant's first load (ADR 055); only
 * the types come from the SDK here.
 */

type Part = ChatMessage["parts"][number];
type Mutable = Record<string, unknown>;

/** The reply being read, and the parts still receiving text or input. */
export interface ReplyState {
  message: ChatMessage;
  texts: Map<string, Mutable>;
  reasoning: Map<string, Mutable>;
  toolInputs: Map<string, { text: string; toolName: string; dynamic: boolean }>;
  finishReason?: string;
}

export function newReply(id: string): ReplyState {
  return {
    message: { id, role: "assistant", parts: [] },
    texts: new Map(),
    reasoning: new Map(),
    toolInputs: new Map(),
  };
}

/** A chunk the stream announced as an error: the endpoint's own words for people. */
export class StreamedError extends Error {}

function mergeMetadata(state: ReplyState, metadata: unknown) {
  if (!metadata || typeof metadata !== "object") return;
  state.message.metadata = { ...(state.message.metadata ?? {}), ...(metadata as object) };
}

/** The parts since the last step began (the SDK looks a tool call up there first). */
function currentStepParts(state: ReplyState): Part[] {
  const parts = state.message.parts;
  let start = parts.length - 1;
  while (start >= 0 && parts[start].type !== "step-start") start -= 1;
  return parts.slice(start + 1);
}

function isToolPart(part: Part): boolean {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

function findTool(state: ReplyState, toolCallId: string): Mutable | undefined {
  const matches = (part: Part) => isToolPart(part) && (part as unknown as Mutable).toolCallId === toolCallId;
  return (currentStepParts(state).find(matches) ?? state.message.parts.findLast(matches)) as Mutable | undefined;
}

/** Creates or updates a tool call's part, as the SDK shapes it (`tool-<name>`, or `dynamic-tool`). */
function updateTool(state: ReplyState, toolCallId: string, toolName: string, dynamic: boolean, fields: Mutable) {
  const existing = findTool(state, toolCallId);
  if (existing) {
    Object.assign(existing, fields);
    return;
  }
  const part: Mutable = dynamic
    ? { type: "dynamic-tool", toolName, toolCallId, ...fields }
    : { type: `tool-${toolName}`, toolCallId, ...fields };
  state.message.parts.push(part as unknown as Part);
}

/** The partial JSON of a tool's input while it streams, when it already parses (else nothing yet). */
function partialInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Folds one chunk into the reply. Returns whether the message changed (a
 * transient data chunk goes only to `onData`). An `error` chunk throws
 * StreamedError with the endpoint's text.
 */
export function applyChunk(
  state: ReplyState,
  chunk: UIMessageChunk,
  onData?: (part: { type: string; data: unknown }) => void,
): boolean {
  const c = chunk as unknown as Mutable & { type: string };
  switch (c.type) {
    case "start":
      if (typeof c.messageId === "string") state.message.id = c.messageId;
      mergeMetadata(state, c.messageMetadata);
      return true;
    case "message-metadata":
      mergeMetadata(state, c.messageMetadata);
      return true;
    case "finish":
      if (typeof c.finishReason === "string") state.finishReason = c.finishReason;
      mergeMetadata(state, c.messageMetadata);
      return c.messageMetadata != null;
    case "start-step":
      state.message.parts.push({ type: "step-start" });
      return false;
    case "text-start": {
      const part: Mutable = { type: "text", text: "", state: "streaming" };
      state.texts.set(String(c.id), part);
      state.message.parts.push(part as unknown as Part);
      return true;
    }
    case "text-delta": {
      const part = state.texts.get(String(c.id));
      if (!part) return false;
      part.text = String(part.text) + String(c.delta);
      return true;
    }
    case "text-end": {
      const part = state.texts.get(String(c.id));
      if (!part) return false;
      part.state = "done";
      state.texts.delete(String(c.id));
      return true;
    }
    case "reasoning-start": {
      const part: Mutable = { type: "reasoning", text: "", state: "streaming" };
      state.reasoning.set(String(c.id), part);
      state.message.parts.push(part as unknown as Part);
      return true;
    }
    case "reasoning-delta": {
      const part = state.reasoning.get(String(c.id));
      if (!part) return false;
      part.text = String(part.text) + String(c.delta);
      return true;
    }
    case "reasoning-end": {
      const part = state.reasoning.get(String(c.id));
      if (!part) return false;
      part.state = "done";
      state.reasoning.delete(String(c.id));
      return true;
    }
    case "tool-input-start": {
      const toolCallId = String(c.toolCallId);
      const toolName = String(c.toolName);
      const dynamic = Boolean(c.dynamic);
      state.toolInputs.set(toolCallId, { text: "", toolName, dynamic });
      // A server's tool carries its title (what the step shows); the SDK's own reader keeps it too.
      updateTool(state, toolCallId, toolName, dynamic, { state: "input-streaming", input: undefined, ...titleOf(c) });
      return true;
    }
    case "tool-input-delta": {
      const partial = state.toolInputs.get(String(c.toolCallId));
      if (!partial) return false;
      partial.text += String(c.inputTextDelta);
      updateTool(state, String(c.toolCallId), partial.toolName, partial.dynamic, {
        state: "input-streaming",
        input: partialInput(partial.text),
      });
      return true;
    }
    case "tool-input-available":
      updateTool(state, String(c.toolCallId), String(c.toolName), Boolean(c.dynamic), {
        state: "input-available",
        input: c.input,
        ...titleOf(c),
      });
      return true;
    case "tool-input-error":
      updateTool(state, String(c.toolCallId), String(c.toolName), Boolean(c.dynamic), {
        state: "output-error",
        input: c.input,
        errorText: c.errorText,
      });
      return true;
    case "tool-output-available": {
      const part = findTool(state, String(c.toolCallId));
      if (!part) return false;
      Object.assign(part, {
        state: "output-available",
        output: c.output,
        ...(c.preliminary ? { preliminary: true } : {}),
      });
      return true;
    }
    case "tool-output-error": {
      const part = findTool(state, String(c.toolCallId));
      if (!part) return false;
      Object.assign(part, { state: "output-error", errorText: c.errorText });
      return true;
    }
    case "error":
      throw new StreamedError(String(c.errorText ?? "Something went wrong."));
    default:
      if (c.type.startsWith("data-")) {
        const part = { type: c.type, ...(c.id !== undefined ? { id: c.id } : {}), data: c.data };
        onData?.(part);
        if (c.transient) return false;
        const existing =
          c.id !== undefined
            ? state.message.parts.find((p) => p.type === c.type && (p as unknown as Mutable).id === c.id)
            : undefined;
        if (existing) Object.assign(existing, { data: c.data });
        else state.message.parts.push(part as unknown as Part);
        return true;
      }
      // source-url, file, abort and the like: nothing this app shows.
      return false;
  }
}

/** The chunks of an event-stream body, until `[DONE]` or its end. */
export async function* readChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<UIMessageChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) !== -1) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (!data) continue;
        if (data === "[DONE]") return;
        yield JSON.parse(data) as UIMessageChunk;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** A snapshot of a message whose parts the reader keeps changing (React needs new objects to see a change). */
export function copyMessage(message: ChatMessage): ChatMessage {
  return { ...message, parts: message.parts.map((part) => ({ ...part })) as ChatMessage["parts"] };
}

function titleOf(chunk: Mutable): { title?: string } {
  return typeof chunk.title === "string" ? { title: chunk.title } : {};
}
