import type { AttachmentRef } from "~/conversation/attachment-types";
import { userParts } from "~/conversation/history";
import { useSyncExternalStore } from "react";
import { messageText, type ChatMessage } from "~/conversation/message-types";
import { showsContent } from "~/chat/reply-parts";
import { ShowPacer } from "./show-pacer";
import { applyChunk, copyMessage, newReply, readChunks, StreamedError, type ReplyState } from "./ui-message-stream";

/**
 * One conversation's chat in the browser: its messages, whether a reply is
 * on its way, and the requests to /api/chat. The same surface as the AI SDK's
 * Chat and useChat (messages, status, error, sendMessage, regenerate, stop,
 * setMessages) without the SDK's client and its zod (ADR 055).
 */

/** A reply whose stream is cut is read again from its run this many times, after 1 s, 2 s, 3 s. */
const MAX_RESUMES = 3;
const RESUME_AFTER_MS = 1_000;

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
  /** Where a Stop is sent, and where a running reply is read from (GET <runsApi>/<id>). */
  stopApi: string;
  runsApi: string;
  /** The request body for the messages as they are when a request is sent. */
  body: (id: string, messages: ChatMessage[]) => unknown;
  onData?: (part: { type: string; data: unknown }) => void;
  /** Once per reply: it is being written on the server (data-run) and some of it is shown. */
  onShownRun?: (run: { runId: string; conversationId: string }) => void;
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
  /** Settles when the current request has its answer's headers (its reply then exists on the server). */
  private responded: Promise<void> | undefined;

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
  sendMessage = async ({
    text,
    messageId,
    attachments,
  }: {
    text: string;
    messageId?: string;
    attachments?: AttachmentRef[];
  }) => {
    const messages = this.snapshot.messages;
    if (messageId !== undefined) {
      const index = messages.findIndex((message) => message.id === messageId);
      if (index === -1 || messages[index].role !== "user") throw new Error(`There is no message ${messageId} to edit.`);
      this.update({
        messages: [...messages.slice(0, index), { id: messageId, role: "user", parts: userParts(text, attachments) }],
      });
    } else {
      this.update({
        messages: [...messages, { id: this.options.generateId(), role: "user", parts: userParts(text, attachments) }],
      });
    }
    await this.request();
  };

  /** Asks again for the reply `messageId` (by default the last one); what followed it goes. */
  regenerate = async ({ messageId }: { messageId?: string } = {}) => {
    const messages = this.snapshot.messages;
    const index =
      messageId === undefined ? messages.length - 1 : messages.findIndex((message) => message.id === messageId);
    if (index === -1) throw new Error(`There is no message ${messageId} to regenerate.`);
    this.update({ messages: messages.slice(0, messages[index].role === "assistant" ? index : index + 1) });
    await this.request();
  };

  /**
   * Stops the reply wherever it is being written (docs/decisions/070): the
   * server ends it and the stream tells this tab it is stored, stopped. When
   * the server knows no such reply (not started yet, or this tab's request
   * never reached it) the request is dropped here, which cancels it there.
   */
  stop = async () => {
    const controller = this.controller;
    if (!controller) return;
    const messageId = this.snapshot.messages.findLast((message) => message.role === "user")?.id;
    const ask = async () => {
      try {
        const response = await fetch(this.options.stopApi, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messageId }),
        });
        return response.ok;
      } catch {
        return false;
      }
    };
    if (messageId && (await ask())) return;
    // Not found: the request may still be in its checks. Once the server answers, its reply exists.
    if (messageId && this.responded) {
      await Promise.race([this.responded, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (this.controller === controller && (await ask())) return;
    }
    controller.abort();
    // A reply that started just as the first ask arrived is stopped by a second.
    if (messageId) setTimeout(() => void ask(), 300);
  };

  /** Follows a reply being written (after a reload, or in another tab or device): its text so far, then live. */
  attach = async (runId: string) => {
    await this.read((signal) => fetch(`${this.options.runsApi}/${encodeURIComponent(runId)}`, { signal }));
  };

  private async request() {
    await this.read((signal) =>
      fetch(this.options.api, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(this.options.body(this.id, this.snapshot.messages)),
        signal,
      }),
    );
  }

  /**
   * Reads one reply's stream. A stream cut short by the network (not by the
   * server saying no) is picked up again from the reply's run, which went on
   * without it (docs/decisions/070): read again from its start, a few times.
   */
  private async read(open: (signal: AbortSignal) => Promise<Response>, resumes = 0, resumed?: AbortController) {
    if (!resumed) this.controller?.abort();
    const controller = resumed ?? new AbortController();
    this.controller = controller;
    if (!resumed) this.update({ status: "submitted", error: undefined });
    let reply: ReplyState | undefined;
    let pacer: ShowPacer | undefined;
    let isAbort = false;
    let isError = false;
    let runId: string | undefined;
    let run: { runId: string; conversationId: string } | undefined;
    let contentShown = false;
    let toldShown = false;
    const tellShown = () => {
      if (toldShown || !run || !contentShown) return;
      toldShown = true;
      this.options.onShownRun?.(run);
    };
    let ended = false;
    let resume = false;
    try {
      const opened = open(controller.signal);
      this.responded = opened.then(
        () => undefined,
        () => undefined,
      );
      const response = await opened;
      if (!response.ok) throw new ChatHttpError(response.status, await response.text());
      if (!response.body) throw new Error("The response body is empty.");
      const current = (reply = newReply(this.options.generateId()));
      // Text arrives a word at a time; it is shown as often as the device renders it with ease (./show-pacer.ts).
      let shownText = "";
      const paced = (pacer = new ShowPacer(() => {
        this.showReply(current.message, true);
        // Whether the page now renders new text (and says when it shows it), or only something else.
        const text = messageText(current.message);
        const changed = text !== shownText;
        shownText = text;
        return changed;
      }));
      // Data parts (the exchange is stored) act on the reply as shown: it must be up to date first.
      const onData = (part: { type: string; data: unknown }) => {
        paced.flush();
        if (part.type === "data-run") {
          run = part.data as { runId: string; conversationId: string };
          runId = run.runId;
        }
        this.options.onData?.(part);
        tellShown();
      };
      for await (const chunk of readChunks(response.body)) {
        if (controller.signal.aborted) break;
        if (chunk.type === "finish") ended = true;
        if (!applyChunk(current, chunk, onData)) continue;
        if (!contentShown && showsContent(chunk)) {
          contentShown = true;
          tellShown();
        }
        // The reply's frame ("start") shows it without calling it streaming yet, as the SDK does.
        if (chunk.type === "start") this.showReply(current.message, false);
        else paced.request();
      }
      paced.flush();
      if (controller.signal.aborted) isAbort = true;
      else if (!ended && runId && resumes < MAX_RESUMES) resume = true;
      if (!resume && this.controller === controller) this.update({ status: "ready" });
    } catch (error) {
      // What was read before a Stop or a failure stays on screen.
      pacer?.flush();
      if (controller.signal.aborted || (error instanceof Error && error.name === "AbortError")) {
        isAbort = true;
        if (this.controller === controller) this.update({ status: "ready" });
      } else if (
        runId &&
        resumes < MAX_RESUMES &&
        !(error instanceof StreamedError) &&
        !(error instanceof ChatHttpError)
      ) {
        resume = true;
      } else {
        isError = true;
        const shown = error instanceof Error ? error : new Error(String(error));
        if (this.controller === controller)
          this.update({ status: "error", error: shown instanceof StreamedError ? new Error(shown.message) : shown });
      }
    }
    // Every error is caught above: this always runs.
    if (resume && runId) {
      // The connection went (the network, a proxy, an instance's restart); the reply did not.
      const id = runId;
      setTimeout(
        () => {
          if (this.controller !== controller) return;
          if (controller.signal.aborted) {
            this.controller = undefined;
            this.update({ status: "ready" });
            return;
          }
          void this.read(
            (signal) => fetch(`${this.options.runsApi}/${encodeURIComponent(id)}`, { signal }),
            resumes + 1,
            controller,
          );
        },
        RESUME_AFTER_MS * (resumes + 1),
      );
      return;
    }
    if (this.controller === controller) this.controller = undefined;
    this.options.onFinish?.({
      message: reply?.message ?? newReply("").message,
      messages: this.snapshot.messages,
      isAbort,
      isError,
    });
  }

  /** The reply as read so far, in place of its last version (or after the messages). */
  private showReply(message: ChatMessage, streaming: boolean) {
    const messages = this.snapshot.messages;
    const shown = copyMessage(message);
    const index = messages.findLastIndex((candidate) => candidate.id === message.id);
    this.update({
      ...(streaming ? { status: "streaming" as const } : {}),
      messages:
        index === -1 ? [...messages, shown] : [...messages.slice(0, index), shown, ...messages.slice(index + 1)],
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
