import { useSyncExternalStore } from "react";
import type { ChatMessage } from "~/chat/message-types";
import { applyChunk, copyMessage, newReply, readChunks, StreamedError, type ReplyState } from "./ui-message-stream";

/**
 * One conversation's chat in the browser: its messages, whether a reply is
 * on its way, and the requests to /api/chat. The same surface as the AI SDK's
 * Chat and useChat (messages, status, error, sendMessage, regenerate, stop,
 * setMessages) without the SDK's client and its zod (ADR 055).
 */

/** At most this often (ms) a streaming reply is re-rendered. */
const SHOW_EVERY_MS = 50;

export type ChatStatus = "submitted" | "streaming" | "ready" | "error";

export interface ChatSnapshot {
  messages: ChatMessage[];
  status: ChatStatus;
  error: Error | undefined;
}

export interface FinishInfo {
  message: ChatMessage;
  messages: ChatMessage[];
  isAbort: boolean;
  isError: boolean;
}

export interface StreamChatOptions {
  id: string;
  messages: ChatMessage[];
  generateId: () => string;
  api: string;
  /** The request body for the messages as they are when a request is sent. */
  body: (id: string, messages: ChatMessage[]) => unknown;
  onData?: (part: { type: string; data: unknown }) => void;
  onFinish?: (info: FinishInfo) => void;
}

/** An HTTP refusal, shaped as the SDK reports it (client-errors.ts reads statusCode and responseBody). */
export class ChatHttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly responseBody: string,
  ) {
    super(responseBody || "Failed to fetch the chat response.");
  }
}

export class StreamChat {
  readonly id: string;
  private snapshot: ChatSnapshot;
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | undefined;

  constructor(private readonly options: StreamChatOptions) {
    this.id = options.id;
    this.snapshot = { messages: options.messages, status: "ready", error: undefined };
  }

  get messages() {
    return this.snapshot.messages;
  }

  get status() {
    return this.snapshot.status;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  getSnapshot = () => this.snapshot;

  private update(change: Partial<ChatSnapshot>) {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }

  setMessages = (messages: ChatMessage[] | ((current: ChatMessage[]) => ChatMessage[])) => {
    this.update({ messages: typeof messages === "function" ? messages(this.snapshot.messages) : messages });
  };

  clearError = () => {
    if (this.snapshot.status === "error") this.update({ status: "ready", error: undefined });
  };

  /** A new message, or (with `messageId`) a user message edited: what followed it goes. */
  sendMessage = async ({ text, messageId }: { text: string; messageId?: string }) => {
    const messages = this.snapshot.messages;
    if (messageId !== undefined) {
      const index = messages.findIndex((message) => message.id === messageId);
      if (index === -1 || messages[index].role !== "user") throw new Error(`There is no message ${messageId} to edit.`);
      this.update({ messages: [...messages.slice(0, index), { id: messageId, role: "user", parts: [{ type: "text", text }] }] });
    } else {
      this.update({ messages: [...messages, { id: this.options.generateId(), role: "user", parts: [{ type: "text", text }] }] });
    }
    await this.request();
  };

  /** Asks again for the reply `messageId` (by default the last one); what followed it goes. */
  regenerate = async ({ messageId }: { messageId?: string } = {}) => {
    const messages = this.snapshot.messages;
    const index = messageId === undefined ? messages.length - 1 : messages.findIndex((message) => message.id === messageId);
    if (index === -1) throw new Error(`There is no message ${messageId} to regenerate.`);
    this.update({ messages: messages.slice(0, messages[index].role === "assistant" ? index : index + 1) });
    await this.request();
  };

  stop = async () => {
    this.controller?.abort();
  };

  private async request() {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.update({ status: "submitted", error: undefined });
    let reply: ReplyState | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let isAbort = false;
    let isError = false;
    try {
      const response = await fetch(this.options.api, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(this.options.body(this.id, this.snapshot.messages)),
        signal: controller.signal,
      });
      if (!response.ok) throw new ChatHttpError(response.status, await response.text());
      if (!response.body) throw new Error("The response body is empty.");
      const current = (reply = newReply(this.options.generateId()));
      // Text arrives a word at a time; showing it at most every SHOW_EVERY_MS (the first
      // change at once) keeps re-rendering a long reply's Markdown from hogging the page.
      let lastShown = 0;
      const show = () => {
        clearTimeout(timer);
        timer = undefined;
        lastShown = performance.now();
        this.showReply(current.message, true);
      };
      // Data parts (the exchange is stored) act on the reply as shown: it must be up to date first.
      const onData = (part: { type: string; data: unknown }) => {
        if (timer !== undefined) show();
        this.options.onData?.(part);
      };
      for await (const chunk of readChunks(response.body)) {
        if (controller.signal.aborted) break;
        if (!applyChunk(current, chunk, onData)) continue;
        // The reply's frame ("start") shows it without calling it streaming yet, as the SDK does.
        if (chunk.type === "start") this.showReply(current.message, false);
        else if (performance.now() - lastShown >= SHOW_EVERY_MS) show();
        else timer ??= setTimeout(show, SHOW_EVERY_MS - (performance.now() - lastShown));
      }
      if (timer !== undefined) show();
      if (controller.signal.aborted) isAbort = true;
      if (this.controller === controller) this.update({ status: "ready" });
    } catch (error) {
      // What was read before a Stop or a failure stays on screen.
      if (timer !== undefined && reply) {
        clearTimeout(timer);
        this.showReply(reply.message, true);
      }
      if (controller.signal.aborted || (error instanceof Error && error.name === "AbortError")) {
        isAbort = true;
        if (this.controller === controller) this.update({ status: "ready" });
      } else {
        isError = true;
        const shown = error instanceof Error ? error : new Error(String(error));
        if (this.controller === controller) this.update({ status: "error", error: shown instanceof StreamedError ? new Error(shown.message) : shown });
      }
    } finally {
      if (this.controller === controller) this.controller = undefined;
      this.options.onFinish?.({
        message: reply?.message ?? newReply("").message,
        messages: this.snapshot.messages,
        isAbort,
        isError,
      });
    }
  }

  /** The reply as read so far, in place of its last version (or after the messages). */
  private showReply(message: ChatMessage, streaming: boolean) {
    const messages = this.snapshot.messages;
    const shown = copyMessage(message);
    const index = messages.findLastIndex((candidate) => candidate.id === message.id);
    this.update({
      ...(streaming ? { status: "streaming" as const } : {}),
      messages: index === -1 ? [...messages, shown] : [...messages.slice(0, index), shown, ...messages.slice(index + 1)],
    });
  }
}

/** A chat's state for a component, re-rendered on each change (like the SDK's useChat). */
export function useStreamChat(chat: StreamChat) {
  const snapshot = useSyncExternalStore(chat.subscribe, chat.getSnapshot, chat.getSnapshot);
  return {
    ...snapshot,
    sendMessage: chat.sendMessage,
    regenerate: chat.regenerate,
    stop: chat.stop,
    setMessages: chat.setMessages,
    clearError: chat.clearError,
  };
}
