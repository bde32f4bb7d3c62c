import {
  convertToModelMessages,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type LanguageModel,
  type ToolSet,
  type UIMessageChunk,
} from "ai";
import { isAccountDeleted } from "~/data/account-lock.server";
import {
  HEARTBEAT_MS,
  markUnsettled,
  refundMessage,
  settleMessage,
  touchReservation,
  type Reservation,
} from "~/data/quotas.server";
import { saveExchange, type Exchange } from "~/data/messages.server";
import type { Db } from "~/db/client.server";
import { logBackendFault, logBackendRecovered } from "~/deadline.server";
import { trackGeneration } from "~/metrics/metrics.server";
import type { ExchangeKind } from "./history";
import type { ChatMessage, ReplyStatus, SavedExchange } from "./message-types";
import { messageText } from "./message-types";
import { describeModelError, MODEL_DROPPED_MESSAGE, MODEL_TIMEOUT_MESSAGE } from "./model-errors.server";
import { settleParts } from "./reply-parts";

/**
 * One reply, from the model request to the stored exchange.
 *
 * The caller starts it once the message is counted (rate limit and quota,
 * docs/decisions/033), and shows nothing until the fresh session check has
 * said yes too. Tokens are forwarded as they arrive. When
 * the reply ends it is stored with the user's message in one transaction —
 * completed, or stopped when the browser hung up (Stop, a closed tab) — and
 * the browser is told it is saved. A failed reply stores nothing and gives
 * its quota back (after the browser is told) — unless some of it was shown:
 * then it counts (docs/decisions/044).
 */

/** Most tool round trips one reply may take before it must answer. */
const MAX_STEPS = 5;

export interface ReplyPlan {
  uid: string;
  conversationId: string;
  kind: ExchangeKind;
  /** The reply a new message follows (null: a first message); for a regenerated reply, its message's. */
  parentId: string | null;
  user: { id: string; text: string; sentAt: Date };
  /** The messages the model sees, ending with the one it answers. */
  history: ChatMessage[];
  system: string;
  model: { id: string; demo: boolean };
  languageModel: LanguageModel;
  tools: ToolSet;
  /** Longest wait for the first token and between two tokens. */
  timeoutMs: number;
  /** Title for a conversation that has none yet. */
  title: string;
  /** A new chat: the conversation is created with the first exchange stored (saveExchange). */
  create?: Exchange["create"];
}

export interface PendingReply {
  /** Stops the model request, e.g. when the quota says no. */
  cancel(): void;
  /** The reply's UI message stream for the browser; stores the exchange when it ends. */
  stream(reservation: Reservation): ReadableStream<UIMessageChunk>;
}

class ModelTimeoutError extends Error {}
class ClientGoneError extends Error {}
class CancelledError extends Error {}

export function startReply(db: Db, plan: ReplyPlan, requestSignal: AbortSignal): PendingReply {
  const abort = new AbortController();
  const onRequestAbort = () => abort.abort(new ClientGoneError("the browser hung up"));
  if (requestSignal.aborted) onRequestAbort();
  else requestSignal.addEventListener("abort", onRequestAbort, { once: true });

  // The AI SDK's own timeouts surface as a plain abort; ours says which it was.
  let watchdog: NodeJS.Timeout | undefined;
  const armWatchdog = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => abort.abort(new ModelTimeoutError("no token in time")), plan.timeoutMs);
  };
  armWatchdog();

  const usage = { inputTokens: 0, outputTokens: 0 };
  let modelError: unknown;
  const replyId = crypto.randomUUID();
  // Running from the model request until finish (below); first shown part and tokens on /metrics.
  const generation = trackGeneration(plan.model.id);

  const uiStream = (async () => {
    const messages = await convertToModelMessages(plan.history, { tools: plan.tools, ignoreIncompleteToolCalls: true });
    const result = streamText({
      model: plan.languageModel,
      system: plan.system,
      messages,
      tools: plan.tools,
      stopWhen: stepCountIs(MAX_STEPS),
      // The person chatting decides about retrying (the Retry button); automatic
      // retries would multiply the wait and the provider's bill.
      maxRetries: 0,
      abortSignal: abort.signal,
      onStepEnd: (step) => {
        usage.inputTokens += step.usage.inputTokens ?? 0;
        usage.outputTokens += step.usage.outputTokens ?? 0;
      },
      onError: ({ error }) => {
        modelError ??= error;
      },
    });
    return result.toUIMessageStream<ChatMessage>({
      generateMessageId: () => replyId,
      sendReasoning: false,
      // Held back until the exchange is stored (see finish below).
      sendFinish: false,
      messageMetadata: ({ part }) =>
        part.type === "start" ? { model: plan.model.id, demo: plan.model.demo || undefined } : undefined,
      onError: (error) => {
        modelError ??= error;
        return describeModelError(error);
      },
      // A tool's error (e.g. bad input from the model) is a result the model
      // reads and recovers from, not a failed reply: keep its own words.
      redactToolErrors: false,
    });
  })();

  const finish = () => {
    generation.end(usage);
    clearTimeout(watchdog);
    requestSignal.removeEventListener("abort", onRequestAbort);
  };

  return {
    cancel() {
      abort.abort(new CancelledError("cancelled before the reply was shown"));
      finish();
      // Nobody will read the stream: let it end without an unhandled rejection.
      void uiStream.then((stream) => stream.cancel()).catch(() => undefined);
    },

    stream(reservation) {
      let browserGone = false;
      return new ReadableStream<UIMessageChunk>({
        start(controller) {
          const send = (chunk: UIMessageChunk) => {
            if (browserGone) return;
            try {
              controller.enqueue(chunk);
            } catch {
              browserGone = true;
            }
          };
          const end = () => {
            if (browserGone) return;
            browserGone = true;
            controller.close();
          };
          // While the reply streams, its claim on the message id stays marked in flight (app/data/quotas.server.ts).
          const heartbeat = setInterval(() => void touchReservation(db, reservation).catch(() => undefined), HEARTBEAT_MS);
          heartbeat.unref();
          void relay(send, end).finally(() => {
            clearInterval(heartbeat);
            finish();
            end();
          });
        },
        cancel() {
          browserGone = true;
          abort.abort(new ClientGoneError("the browser stopped reading"));
        },
      });

      async function relay(send: (chunk: UIMessageChunk) => void, end: () => void) {
        /**
         * Tells the browser the reply failed, then settles the quota (the browser
         * need not wait for a store that may be stalled): a reply of which anything
         * was shown counts even though it was not stored (docs/decisions/044), so
         * failing a save on purpose gains nothing; one that showed nothing is given back.
         */
        const fail = async (errorText?: string) => {
          if (errorText !== undefined) send({ type: "error", errorText });
          end();
          await (shown ? keepCounted(db, reservation) : giveBack(db, reservation));
        };

        // A second copy of the chunks builds the reply as the browser sees it, for storing.
        const copy = new TransformStream<UIMessageChunk, UIMessageChunk>();
        const copyWriter = copy.writable.getWriter();
        const assembled = lastMessage(
          readUIMessageStream<ChatMessage>({ stream: copy.readable, onError: () => undefined }),
        ).catch(() => undefined);

        let received = 0;
        let thrown = false;
        /** Whether the browser was sent any of the reply (text, a tool step), not only its frame. */
        let shown = false;
        try {
          for await (const chunk of await uiStream) {
            received += 1;
            armWatchdog();
            // After our own timeout the browser gets an error, not the SDK's plain abort.
            if (chunk.type === "abort" && abort.signal.reason instanceof ModelTimeoutError) continue;
            void copyWriter.write(chunk).catch(() => undefined);
            send(chunk);
            shown ||= showsContent(chunk);
            if (shown) generation.firstContent();
          }
        } catch (error) {
          // A connection dropped mid-stream makes the iteration throw (the SDK sends no error chunk then).
          thrown = !abort.signal.aborted;
          modelError ??= error;
        }
        clearTimeout(watchdog);
        void copyWriter.close().catch(() => undefined);
        const reply = await assembled;

        const reason = abort.signal.reason;
        let failure: string | undefined;
        if (reason instanceof ModelTimeoutError) failure = MODEL_TIMEOUT_MESSAGE;
        else if (thrown && received > 0) failure = MODEL_DROPPED_MESSAGE;
        else if (modelError !== undefined && !abort.signal.aborted) failure = describeModelError(modelError);

        if (failure !== undefined) {
          logBackendFault("model", `reply with ${plan.model.id}`, modelError ?? reason);
          // The SDK already sent its error chunk for errors it saw itself.
          await fail(reason instanceof ModelTimeoutError || thrown ? failure : undefined);
          return;
        }

        const status: ReplyStatus = abort.signal.aborted ? "stopped" : "completed";
        if (status === "completed") logBackendRecovered("model");
        const parts = settleParts(reply?.parts ?? []);
        // Stopped before any of it was shown: stored (the user's message stays), but free (docs/decisions/044).
        const refund = status === "stopped" && !shown;
        try {
          const saved = await saveExchange(db, {
            uid: plan.uid,
            conversationId: plan.conversationId,
            kind: plan.kind,
            parentId: plan.parentId,
            user: plan.user,
            reply: {
              id: replyId,
              parts,
              content: messageText({ parts }),
              status,
              model: plan.model.id,
              inputTokens: usage.inputTokens,
              outputTokens: usage.outputTokens,
            },
            usageDay: reservation.day,
            title: plan.title,
            create: plan.create,
            refund,
          });
          if (!saved) {
            await fail("This conversation was deleted, so the reply was not saved.");
            return;
          }
          // Only now does the conversation exist: a new chat can take its URL (docs/decisions/033).
          send({ type: "data-conversation", data: { id: plan.conversationId }, transient: true });
          const confirmation: SavedExchange = {
            conversationId: plan.conversationId,
            userMessageId: plan.user.id,
            replyId,
            status,
            title: saved.title,
            remaining: refund && reservation.remaining !== null ? reservation.remaining + 1 : reservation.remaining,
          };
          send({ type: "data-saved", data: confirmation, transient: true });
          send({ type: "finish", finishReason: status === "completed" ? "stop" : "other" });
        } catch (error) {
          if (isAccountDeleted(error)) {
            await fail("This account was deleted, so the reply was not saved.");
            return;
          }
          logBackendFault("postgres", "saving a reply", error);
          await fail("The reply could not be saved. Please try again.");
        }
      }
    },
  };
}

async function lastMessage(messages: AsyncIterable<ChatMessage>): Promise<ChatMessage | undefined> {
  let last: ChatMessage | undefined;
  for await (const message of messages) last = message;
  return last;
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

function showsContent(chunk: UIMessageChunk): boolean {
  if (chunk.type === "text-delta") return chunk.delta !== "";
  return !FRAME_CHUNKS.has(chunk.type);
}

/**
 * A reply that showed nothing does not use up the quota. When the store
 * cannot take the refund now, the reservation stays held for this message: a
 * Retry on this instance reuses it, and otherwise it is given back after its
 * lease (app/data/quotas.server.ts).
 */
export async function giveBack(db: Db, reservation: Reservation) {
  if (!reservation.allowed) return;
  try {
    await refundMessage(db, reservation);
  } catch (error) {
    markUnsettled(reservation);
    logBackendFault("postgres", "giving back a quota reservation", error);
  }
}

/** A reply that was shown but not stored: it stays counted, and the message may be sent again. */
async function keepCounted(db: Db, reservation: Reservation) {
  try {
    await settleMessage(db, reservation);
  } catch (error) {
    // The store is failing: a Retry of this message on this instance may go ahead (and counts anew).
    markUnsettled(reservation, { shown: true });
    logBackendFault("postgres", "settling a quota reservation", error);
  }
}
