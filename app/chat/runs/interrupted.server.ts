import { readUIMessageStream, type UIMessageChunk } from "ai";
import { isAccountDeleted } from "~/data/account-lock.server";
import { saveExchange } from "~/data/messages.server";
import { refundMessage, settleMessage } from "~/data/quotas.server";
import type { Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import type { ChatMessage, SavedExchange } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import { lastMessage, settleParts, showsContent } from "../reply-parts";
import { publishConversationEvent } from "../live/conversation-events.server";
import { appendBatch, endRun, notifyRun, readBatches, takeOverExpired, type RunRow } from "./run-store.server";
import { INSTANCE_ID, runSettings } from "./run-settings.server";
import { noticeRunEnded } from "../notify/reply-notices.server";

/**
 * Settles a run whose instance died (its lease ran out): this instance takes
 * the lease over (only one can), stores what was streamed as an interrupted
 * reply — or, when nothing of it was shown, the user's message with an empty
 * interrupted reply, and gives the quota unit back — then ends the run, so
 * readers see it end and the quota is settled exactly once.
 */
export async function settleInterrupted(db: Db, run: RunRow): Promise<boolean> {
  const { leaseSeconds, notify } = runSettings();
  if (!(await takeOverExpired(db, run.id, INSTANCE_ID, leaseSeconds))) return false;
  const batches = await readBatches(db, run.id, 0);
  const chunks = batches.flatMap((batch) => batch.chunks);
  const shown = chunks.some(showsContent);
  const reply = await assemble(chunks);
  const parts = settleParts(reply?.parts ?? []);
  const exchange = run.exchange;
  const last: UIMessageChunk[] = [];
  try {
    const saved = await saveExchange(db, {
      ...exchange,
      user: { ...exchange.user, sentAt: new Date(exchange.user.sentAt) },
      reply: {
        id: run.id,
        parts,
        content: messageText({ parts }),
        status: "interrupted",
        model: run.model,
        inputTokens: 0,
        outputTokens: 0,
      },
      refund: !shown,
    });
    if (saved) {
      const confirmation: SavedExchange = {
        conversationId: run.conversationId,
        userMessageId: run.userMessageId,
        replyId: run.id,
        status: "interrupted",
        title: saved.title,
        remaining: null,
      };
      last.push({ type: "data-conversation", data: { id: run.conversationId }, transient: true } as UIMessageChunk);
      last.push({ type: "data-saved", data: confirmation, transient: true } as UIMessageChunk);
      last.push({ type: "finish", finishReason: "other" });
    } else {
      await (shown
        ? settleMessage(db, { uid: run.uid, messageId: run.userMessageId })
        : refundMessage(db, { uid: run.uid, messageId: run.userMessageId }));
      last.push({ type: "error", errorText: "This conversation was deleted, so the reply was not saved." });
    }
  } catch (error) {
    if (!isAccountDeleted(error)) logBackendFault("postgres", "storing an interrupted reply", error);
    last.push({ type: "error", errorText: "The reply was interrupted and could not be saved. Please try again." });
  }
  await appendBatch(db, run.id, (batches.at(-1)?.seq ?? 0) + 1, last, leaseSeconds, notify);
  const ended = await endRun(db, run.id, "interrupted");
  await notifyRun(db, { run: run.id, kind: "end" });
  if (ended) noticeRunEnded(db, run, "interrupted");
  await publishConversationEvent(db, run.uid, {
    type: "run-ended",
    conversationId: run.conversationId,
    runId: run.id,
    status: "interrupted",
  });
  return true;
}

async function assemble(chunks: UIMessageChunk[]): Promise<ChatMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      // Our data parts are not part of the stored reply.
      for (const chunk of chunks)
        if (!chunk.type.startsWith("data-") && chunk.type !== "error") controller.enqueue(chunk);
      controller.close();
    },
  });
  return lastMessage(readUIMessageStream<ChatMessage>({ stream, onError: () => undefined }));
}
