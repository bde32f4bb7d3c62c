import {
  convertToModelMessages,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type LanguageModel,
  type ToolSet,
  type UIMessageChunk,
} from "ai";
import { getConfig } from "~/config.server";
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
import { costMicroUsd } from "~/settings/budget-settings";
import { estimatePromptTokens, estimateTextTokens } from "~/budgets/prompt-estimate";
import { getBudgetStatus, MIN_REPLY_TOKENS, priceOf } from "~/data/budgets.server";
import { toBudgetView, type BudgetView } from "~/budgets/budget-text";
import type { AttachmentRef, ReplySources, SourcePassage } from "~/conversation/attachment-types";
import type { WebSourceList } from "~/search/source-list";
import { attachmentContext } from "~/attachments/model-context.server";
import type { Db } from "~/db/client.server";
import { logBackendFault, logBackendRecovered } from "~/deadline.server";
import { trackGeneration } from "~/metrics/metrics.server";
import type { ExchangeKind } from "~/conversation/history";
import type { ChatMessage, ReplyStatus, SavedExchange } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import { describeModelError, MODEL_DROPPED_MESSAGE, MODEL_TIMEOUT_MESSAGE } from "./model-errors.server";
import { believableUsage, reportedUsageCeiling } from "./reported-usage";
import { lastMessage, settleParts, showsContent } from "./reply-parts";
import type { LocalRun } from "./runs/local-run.server";
import type { RunStatus } from "./runs/run-store.server";
import { startRun } from "./runs/runs.server";
import { generateTitleLater } from "./generated-title.server";
import { serverToolsFor } from "./server-tools.server";
import { memoryTools, type ReplyMemory } from "./memory.server";

/**
 * One reply, from the model request to the stored exchange.
 *
 * The caller starts it once the message is counted (rate limit and quota,
 * docs/decisions/033), and shows nothing until the fresh session check has
 * said yes too. From then on the reply is a run (docs/decisions/070): it goes
 * on to its end whatever happens to the request that started it — a closed
 * tab, a reload, a lost network — and its chunks go to the run, which any
 * reader on any instance follows. It ends when the model is done, on a Stop
 * (from any tab or instance), on the model's failure, or when this instance
 * shuts down (interrupted, with its partial text). The exchange is then
 * stored with the user's message in one transaction and the readers are told
 * it is saved. A failed reply stores nothing and gives its quota back —
 * unless some of it was shown: then it counts (docs/decisions/044).
 */

/** How long the readers of a failed reply may wait for its quota to be settled before they hear the end. */
const SETTLE_WAIT_MS = 500;

/** The reply's one `data-sources` part: each update replaces it. */
const SOURCES_PART_ID = "sources";
/** The reply's one `data-memories` part: the memories its prompt was given. */
const MEMORIES_PART_ID = "memories";

export interface ReplyPlan {
  uid: string;
  conversationId: string;
  kind: ExchangeKind;
  /** The reply a new message follows (null: a first message); for a regenerated reply, its message's. */
  parentId: string | null;
  user: { id: string; text: string; sentAt: Date; attachments: AttachmentRef[] };
  /** The messages the model sees, ending with the one it answers. */
  history: ChatMessage[];
  system: string;
  model: { id: string; demo: boolean };
  /** The model takes images (LLM_VISION_MODELS). */
  vision: boolean;
  languageModel: LanguageModel;
  /** The built-in tools; the MCP servers' are added as the model request starts (server-tools.server.ts). */
  tools: ToolSet;
  /** Memory across chats (docs/decisions/103): whether its tools are offered, and the memories in `system`. */
  memory?: ReplyMemory;
  /** The tools this reply may not use, built-in and servers': the user's switches and the chat's choice. */
  switchedOffToolIds?: readonly string[];
  /** The chat's choice as the request sent it (kept on the conversation with the exchange); left out: unchanged. */
  toolsOff?: string[];
  /** The pages the reply's tools find (web_search), numbered after its passages: Sources too. */
  webSources?: WebSourceList;
  /** Longest wait for the first token and between two tokens. */
  timeoutMs: number;
  /** Title for a conversation that has none yet. */
  title: string;
  /** A new chat: the conversation is created with the first exchange stored (saveExchange). */
  create?: Exchange["create"];
  /** Budgeted replies (docs/decisions/072): the prompt's estimate, the cap on the reply, the budget after the hold. */
  promptTokens?: number;
  maxOutputTokens?: number;
  budget?: BudgetView | null;
  /** A budget is spent: this reply comes from the role's fallback model. */
  fallback?: boolean;
  /** Whose budgets (the confirmed role). */
  who?: { role: string; isAdmin: boolean };
  /** The role's key ("none", "pro", "admin"), stored with the day's usage. */
  role?: string;
  /** The sender's email, for the admins' record of tool calls. */
  email?: string;
}

export interface PendingReply {
  /** Stops the model request, e.g. when the quota says no. */
  cancel(): void;
  /**
   * Makes the reply a run that goes on without the request (docs/decisions/070);
   * read it with run.read(). Stores the exchange when it ends.
   */
  run(reservation: Reservation): LocalRun;
}

/** Why a reply's model request was aborted: the abort's reason says which ending it was. */
class ModelTimeoutError extends Error {}
class ClientGoneError extends Error {}
class CancelledError extends Error {}
class StopError extends Error {}
class ShutdownError extends Error {}

export function startReply(db: Db, plan: ReplyPlan, requestSignal: AbortSignal): PendingReply {
  const call = new ModelCall(db, plan, requestSignal);
  return {
    cancel: () => call.cancel(),
    run: (reservation) => runReply(db, plan, call, reservation),
  };
}

/**
 * The model request of one reply: its abort (with the reason), the watchdog
 * that ends a wait for a token, what the provider reports it used, and the
 * reply's stream of UI chunks as the AI SDK writes them.
 */
class ModelCall {
  readonly abort = new AbortController();
  readonly replyId = crypto.randomUUID();
  readonly usage: ReplyUsage = { inputTokens: 0, outputTokens: 0, unbelievable: false };
  /** The first error the model or the SDK reported. */
  modelError: unknown;
  /** The passages the reply is given from attached documents (its Sources), once the context is read. */
  sources: SourcePassage[] = [];
  readonly stream: Promise<AsyncIterable<UIMessageChunk> & ReadableStream<UIMessageChunk>>;
  // Running from the model request until finish; first shown part and tokens on /metrics.
  readonly generation: ReturnType<typeof trackGeneration>;
  private watchdog: NodeJS.Timeout | undefined;
  /** Tool calls under way: while any runs (or waits for a person), no token is expected. */
  private watchdogHolds = 0;
  /** Chunks the reply's tools add (approval cards), before the relay takes them (sideChannel). */
  private sideChunks: UIMessageChunk[] = [];
  private sideChannel: ((chunk: UIMessageChunk) => void) | undefined;
  // Until the reply is a run, a request that goes away takes its model request with it.
  private readonly onRequestAbort = () => this.abort.abort(new ClientGoneError("the browser hung up"));

  constructor(
    private readonly db: Db,
    private readonly plan: ReplyPlan,
    private readonly requestSignal: AbortSignal,
  ) {
    if (requestSignal.aborted) this.onRequestAbort();
    else requestSignal.addEventListener("abort", this.onRequestAbort, { once: true });
    this.armWatchdog();
    this.generation = trackGeneration(plan.model.id);
    this.stream = this.streamFromModel();
  }

  /** The AI SDK's own timeouts surface as a plain abort; ours says which it was. */
  armWatchdog() {
    clearTimeout(this.watchdog);
    if (this.watchdogHolds > 0) return;
    this.watchdog = setTimeout(() => this.abort.abort(new ModelTimeoutError("no token in time")), this.plan.timeoutMs);
  }

  stopWatchdog() {
    clearTimeout(this.watchdog);
  }

  /** While a tool call runs, the wait for the model's next token is off; the release puts it back. */
  holdWatchdog(): () => void {
    this.watchdogHolds += 1;
    clearTimeout(this.watchdog);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.watchdogHolds -= 1;
      if (this.watchdogHolds === 0 && !this.abort.signal.aborted) this.armWatchdog();
    };
  }

  /** A chunk from the reply's tools (an approval card): to the readers and the stored reply, in order. */
  emit(chunk: UIMessageChunk) {
    if (this.sideChannel) this.sideChannel(chunk);
    else this.sideChunks.push(chunk);
  }

  /** Where the tools' chunks go from now on (the relay), with those that came before. */
  relaySideChunks(channel: ((chunk: UIMessageChunk) => void) | undefined) {
    this.sideChannel = channel;
    if (!channel) return;
    for (const chunk of this.sideChunks.splice(0)) channel(chunk);
  }

  /** From now on the reply no longer depends on the request. */
  detachFromRequest() {
    this.requestSignal.removeEventListener("abort", this.onRequestAbort);
  }

  finish() {
    this.generation.end(this.usage);
    this.stopWatchdog();
    this.detachFromRequest();
  }

  cancel() {
    this.abort.abort(new CancelledError("cancelled before the reply was shown"));
    this.finish();
    // Nobody will read the stream: let it end without an unhandled rejection.
    void this.stream.then((stream) => stream.cancel()).catch(() => undefined);
  }

  /** Stops the model request: a Stop from any tab, or this instance shutting down. */
  stop(reason: "stop" | "shutdown") {
    this.abort.abort(
      reason === "shutdown" ? new ShutdownError("the server is shutting down") : new StopError("stopped"),
    );
  }

  private async streamFromModel(): Promise<AsyncIterable<UIMessageChunk> & ReadableStream<UIMessageChunk>> {
    const { plan } = this;
    const [context, tools] = await Promise.all([
      attachmentContext(this.db, plan.uid, plan.history, plan.vision),
      this.offeredTools(),
    ]);
    this.sources = context.sources;
    // Before any tool can run: the pages found are numbered after the passages.
    plan.webSources?.startAfter(context.sources.length);
    const messages = await convertToModelMessages(context.history, {
      tools,
      ignoreIncompleteToolCalls: true,
      convertDataPart: context.convertDataPart,
    });
    const usageCeiling = reportedUsageCeiling(
      promptEstimateOf(plan),
      plan.maxOutputTokens ?? getConfig().budgets.maxOutputTokens,
    );
    const result = streamText({
      model: plan.languageModel,
      system: plan.system,
      messages,
      tools,
      maxOutputTokens: plan.maxOutputTokens,
      stopWhen:
        plan.maxOutputTokens === undefined
          ? stepCountIs(getConfig().toolCalls.maxSteps)
          : [stepCountIs(getConfig().toolCalls.maxSteps), () => this.outOfHold()],
      // The person chatting decides about retrying (the Retry button); automatic
      // retries would multiply the wait and the provider's bill.
      maxRetries: 0,
      abortSignal: this.abort.signal,
      onStepEnd: (step) => {
        const reported = believableUsage(step.usage, usageCeiling);
        if (!reported) this.usage.unbelievable = true;
        this.usage.inputTokens += reported?.inputTokens ?? 0;
        this.usage.outputTokens += reported?.outputTokens ?? 0;
      },
      onError: ({ error }) => {
        this.modelError ??= error;
      },
    });
    return result.toUIMessageStream<ChatMessage>({
      generateMessageId: () => this.replyId,
      sendReasoning: false,
      // Held back until the exchange is stored (storeReply).
      sendFinish: false,
      messageMetadata: ({ part }) =>
        part.type === "start"
          ? { model: plan.model.id, demo: plan.model.demo || undefined, fallback: plan.fallback || undefined }
          : undefined,
      onError: (error) => {
        this.modelError ??= error;
        return describeModelError(error);
      },
      // A tool's error (e.g. bad input from the model) is a result the model
      // reads and recovers from, not a failed reply: keep its own words.
      redactToolErrors: false,
    });
  }

  /**
   * The built-in tools and the MCP servers' tools this user's role may use
   * (docs/decisions/090); a reply planned without a role (none is confirmed)
   * gets the built-in ones only.
   */
  private async offeredTools(): Promise<ToolSet> {
    const { plan } = this;
    const own = plan.memory?.offered
      ? { ...plan.tools, ...memoryTools({ db: this.db, uid: plan.uid, conversationId: plan.conversationId }) }
      : plan.tools;
    if (plan.role === undefined) return own;
    try {
      const fromServers = await serverToolsFor(
        this.db,
        {
          uid: plan.uid,
          roleKey: plan.role,
          switchedOff: plan.switchedOffToolIds ?? [],
          reserved: Object.keys(own),
        },
        {
          db: this.db,
          uid: plan.uid,
          email: plan.email,
          conversationId: plan.conversationId,
          runId: this.replyId,
          emit: (chunk) => this.emit(chunk),
          holdWatchdog: () => this.holdWatchdog(),
        },
      );
      return { ...own, ...fromServers };
    } catch (error) {
      logBackendFault("postgres", "reading the tool servers for a reply", error);
      return own;
    }
  }

  /** The reply's Sources as they stand: the passages, then any pages its tools found. */
  listedSources(): ReplySources {
    const web = this.plan.webSources?.sources ?? [];
    return web.length > 0 ? { passages: this.sources, web: [...web] } : { passages: this.sources };
  }

  /** The memories the reply's system prompt was given. */
  recalledMemories(): ReplyMemory["recalled"] {
    return this.plan.memory?.recalled ?? [];
  }

  /** Goes up whenever a tool adds to the Sources: the relay sends them again when it moved. */
  sourcesVersion(): number {
    return this.plan.webSources?.version ?? 0;
  }

  /** A budgeted reply takes no further tool step once the next one might not fit what it holds. */
  private outOfHold(): boolean {
    const { plan, usage } = this;
    if (plan.promptTokens === undefined || plan.maxOutputTokens === undefined) return false;
    // What was used is no longer known: what is left of the hold cannot be told either.
    if (usage.unbelievable) return true;
    const held = plan.promptTokens + plan.maxOutputTokens;
    const nextPrompt = usage.inputTokens + usage.outputTokens;
    return usage.inputTokens + usage.outputTokens + nextPrompt + MIN_REPLY_TOKENS > held;
  }
}

/** The reply as a run (docs/decisions/070): relayed to its readers, stored when it ends, its quota settled. */
function runReply(db: Db, plan: ReplyPlan, call: ModelCall, reservation: Reservation): LocalRun {
  call.detachFromRequest();
  const run = startRun(db, {
    id: call.replyId,
    uid: plan.uid,
    conversationId: plan.conversationId,
    userMessageId: plan.user.id,
    model: plan.model.id,
    exchange: {
      uid: plan.uid,
      conversationId: plan.conversationId,
      kind: plan.kind,
      parentId: plan.parentId,
      user: {
        id: plan.user.id,
        text: plan.user.text,
        sentAt: plan.user.sentAt.toISOString(),
        attachments: plan.user.attachments,
      },
      usageDay: reservation.day,
      title: plan.title,
      create: plan.create,
      toolsOff: plan.toolsOff,
    },
  });
  run.onStop = (reason) => call.stop(reason === "shutdown" ? "shutdown" : "stop");
  const send = (chunk: UIMessageChunk) => run.push(chunk);
  // Which run this is, once any instance can find it: a new chat then takes its address (a reload finds it).
  void run.recorded.then(
    (ok) =>
      ok &&
      send({ type: "data-run", data: { runId: call.replyId, conversationId: plan.conversationId }, transient: true }),
  );
  // While the reply streams, its claim on the message id stays marked in flight (app/data/quotas.server.ts).
  const heartbeat = setInterval(() => void touchReservation(db, reservation).catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  const ending: Ending = { status: "failed", shown: false };
  void relayAndStore({ db, plan, call, reservation, run, send, ending })
    .catch((error) => logBackendFault("model", `reply with ${plan.model.id}`, error))
    .finally(() => {
      clearInterval(heartbeat);
      call.finish();
      void run.end(ending.status === "running" ? "failed" : ending.status);
    });
  return run;
}

/** How the run ended, as far as it got: what its readers were told, and whether any of the reply was shown. */
interface Ending {
  status: RunStatus;
  shown: boolean;
}

interface Relay {
  db: Db;
  plan: ReplyPlan;
  call: ModelCall;
  reservation: Reservation;
  run: LocalRun;
  send: (chunk: UIMessageChunk) => void;
  ending: Ending;
}

async function relayAndStore(relay: Relay) {
  const { call, plan } = relay;
  const relayed = await relayChunks(relay);
  const failure = failureOf(call, relayed);
  if (failure !== undefined) {
    logBackendFault("model", `reply with ${plan.model.id}`, call.modelError ?? call.abort.signal.reason);
    // The SDK already sent its error chunk for errors it saw itself.
    await failRun(relay, call.abort.signal.reason instanceof ModelTimeoutError || relayed.thrown ? failure : undefined);
    return;
  }
  await storeReply(relay, relayed.reply);
}

/**
 * Sends the model's chunks to the run's readers as they come, and builds from
 * a second copy of them the reply as the readers see it, for storing.
 */
async function relayChunks({ call, send, ending }: Relay) {
  const copy = new TransformStream<UIMessageChunk, UIMessageChunk>();
  const copyWriter = copy.writable.getWriter();
  const assembled = lastMessage(
    readUIMessageStream<ChatMessage>({ stream: copy.readable, onError: () => undefined }),
  ).catch(() => undefined);

  // Every part goes to the copy that is stored and to the readers alike.
  const sendPart = (chunk: UIMessageChunk) => {
    void copyWriter.write(chunk).catch(() => undefined);
    send(chunk);
  };

  let received = 0;
  let thrown = false;
  call.relaySideChunks(sendPart);
  let started = false;
  let sentSources = call.sourcesVersion();
  try {
    for await (const chunk of await call.stream) {
      received += 1;
      call.armWatchdog();
      // After our own timeout the readers get an error, not the SDK's plain abort.
      if (chunk.type === "abort" && call.abort.signal.reason instanceof ModelTimeoutError) continue;
      sendPart(chunk);
      // Right after the reply's first chunk (stored with it, even if it is interrupted), and again
      // whenever a tool finds pages: one part, replaced each time (it has an id). The tool may have
      // run before this loop has read its call (the model's stream runs ahead of a loaded relay):
      // the pages follow the tool's output, never its input.
      const sourcesChanged = call.sourcesVersion() !== sentSources && !chunk.type.startsWith("tool-input");
      if ((chunk.type === "start" && call.sources.length > 0) || (started && sourcesChanged)) {
        sentSources = call.sourcesVersion();
        sendPart({ type: "data-sources", id: SOURCES_PART_ID, data: call.listedSources() });
      }
      // Right after the first chunk: which memories the reply was given ("Used N memories"), stored with it.
      if (chunk.type === "start" && call.recalledMemories().length > 0) {
        sendPart({ type: "data-memories", id: MEMORIES_PART_ID, data: { memories: call.recalledMemories() } });
      }
      started ||= chunk.type === "start";
      // Whether the readers were sent any of the reply (text, a tool step), not only its frame.
      ending.shown ||= showsContent(chunk);
      if (ending.shown) call.generation.firstContent();
    }
  } catch (error) {
    // A connection dropped mid-stream makes the iteration throw (the SDK sends no error chunk then).
    thrown = !call.abort.signal.aborted;
    call.modelError ??= error;
  }
  call.stopWatchdog();
  call.relaySideChunks(undefined);
  void copyWriter.close().catch(() => undefined);
  return { reply: await assembled, received, thrown };
}

/** What the readers are told went wrong, or undefined when the reply ended as it should (or was stopped). */
function failureOf(call: ModelCall, { received, thrown }: { received: number; thrown: boolean }): string | undefined {
  const reason = call.abort.signal.reason;
  if (reason instanceof ModelTimeoutError) return MODEL_TIMEOUT_MESSAGE;
  if (thrown && received > 0) return MODEL_DROPPED_MESSAGE;
  if (call.modelError !== undefined && !call.abort.signal.aborted) return describeModelError(call.modelError);
  return undefined;
}

/**
 * Tells the readers the reply failed, then settles the quota: a reply of
 * which anything was shown counts even though it was not stored
 * (docs/decisions/044), so failing a save on purpose gains nothing; one
 * that showed nothing is given back.
 */
async function failRun({ db, plan, call, reservation, run, send, ending }: Relay, errorText?: string) {
  if (errorText !== undefined) send({ type: "error", errorText });
  ending.status = "failed";
  // Settled before the readers hear the end (so a reload shows the right count), but they
  // never wait long for a store that may be stalled: the error is what they need.
  const settled = ending.shown
    ? keepCounted(db, reservation, spentBy(plan, call.usage, []))
    : giveBack(db, reservation);
  await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS).unref())]);
  void run.end("failed");
  await settled;
}

/** Completed, stopped (from any tab) or handed over at shutdown with what it had: stored with the user's message, then confirmed. */
async function storeReply(relay: Relay, reply: ChatMessage | undefined) {
  const { db, plan, call, reservation, send, ending } = relay;
  const reason = call.abort.signal.reason;
  const status: ReplyStatus = !call.abort.signal.aborted
    ? "completed"
    : reason instanceof ShutdownError
      ? "interrupted"
      : "stopped";
  if (status === "completed") logBackendRecovered("model");
  const parts = settleParts(reply?.parts ?? []);
  // Ended before any of it was shown: stored (the user's message stays), but free (docs/decisions/044).
  const refund = status !== "completed" && !ending.shown;
  const spent = spentBy(plan, call.usage, parts);
  try {
    const saved = await saveExchange(db, {
      uid: plan.uid,
      conversationId: plan.conversationId,
      kind: plan.kind,
      parentId: plan.parentId,
      user: plan.user,
      reply: {
        id: call.replyId,
        parts,
        content: messageText({ parts }),
        status,
        model: plan.model.id,
        inputTokens: spent.inputTokens,
        outputTokens: spent.outputTokens,
        costMicroUsd: spent.costMicroUsd,
      },
      usageDay: reservation.day,
      role: plan.role,
      title: plan.title,
      create: plan.create,
      toolsOff: plan.toolsOff,
      refund,
    });
    if (!saved) return failRun(relay, "This conversation was deleted, so the reply was not saved.");
    // Only now does the conversation exist: a new chat can take its URL (docs/decisions/033).
    send({ type: "data-conversation", data: { id: plan.conversationId }, transient: true });
    const confirmation: SavedExchange = {
      conversationId: plan.conversationId,
      userMessageId: plan.user.id,
      replyId: call.replyId,
      status,
      title: saved.title,
      remaining: refund && reservation.remaining !== null ? reservation.remaining + 1 : reservation.remaining,
      budget: plan.budget === undefined ? undefined : await budgetAfter(db, plan),
    };
    send({ type: "data-saved", data: confirmation, transient: true });
    send({ type: "finish", finishReason: status === "completed" ? "stop" : "other" });
    ending.status = status;
    // Off the reply's path: its readers have their answer; the title follows (docs/decisions/086).
    if (wantsGeneratedTitle(plan, saved.title, parts)) {
      generateTitleLater(db, {
        uid: plan.uid,
        conversationId: plan.conversationId,
        userText: plan.user.text,
        replyText: messageText({ parts }),
        storedTitle: saved.title ?? plan.title,
        usageDay: reservation.day,
        role: plan.role,
      });
    }
  } catch (error) {
    if (isAccountDeleted(error)) return failRun(relay, "This account was deleted, so the reply was not saved.");
    logBackendFault("postgres", "saving a reply", error);
    await failRun(relay, "The reply could not be saved. Please try again.");
  }
}

/** A new chat's first reply, stored with some text: its title is generated (docs/decisions/086). */
function wantsGeneratedTitle(plan: ReplyPlan, storedTitle: string | null, parts: ChatMessage["parts"]): boolean {
  if (!plan.create || storedTitle === null) return false;
  if (isTemporaryChat(plan)) return false;
  return messageText({ parts }).trim() !== "";
}

/** Temporary chats get no generated title: nothing of theirs is kept for a list to show (docs/decisions/085). */
function isTemporaryChat(plan: ReplyPlan): boolean {
  return plan.create?.temporary === true;
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

/** A reply that was shown but not stored: it stays counted (with what it used), and the message may be sent again. */
async function keepCounted(db: Db, reservation: Reservation, spent: Spent) {
  try {
    await settleMessage(db, reservation, spent);
  } catch (error) {
    // The store is failing: a Retry of this message on this instance may go ahead (and counts anew).
    markUnsettled(reservation, { shown: true });
    logBackendFault("postgres", "settling a quota reservation", error);
  }
}

type Spent = { inputTokens: number; outputTokens: number; costMicroUsd: number };

/** What the provider reported, in believable steps (reported-usage.ts); `unbelievable` once a step's counts were not. */
type ReplyUsage = { inputTokens: number; outputTokens: number; unbelievable: boolean };

/** The prompt's estimate: the budget hold's when there is one. */
function promptEstimateOf(plan: ReplyPlan): number {
  return plan.promptTokens ?? estimatePromptTokens(plan.system, plan.history, { vision: plan.vision });
}

/**
 * What a reply used, at its model's price. A provider that reports no usage
 * (the demo, some local servers) is charged at the estimate when the reply
 * is budgeted: a budget that never moved could not be kept. One whose report
 * cannot be believed (reported-usage.ts) is charged at the estimate always.
 */
function spentBy(plan: ReplyPlan, usage: ReplyUsage, parts: ChatMessage["parts"]): Spent {
  let { inputTokens, outputTokens } = usage;
  if (usage.unbelievable || (inputTokens + outputTokens === 0 && plan.promptTokens !== undefined)) {
    inputTokens = promptEstimateOf(plan);
    outputTokens = estimateTextTokens(messageText({ parts }));
  }
  return { inputTokens, outputTokens, costMicroUsd: costMicroUsd(priceOf(plan.model.id), inputTokens, outputTokens) };
}

/** The budget once this reply is settled, for the composer (a role without budgets reads nothing). */
async function budgetAfter(db: Db, plan: ReplyPlan): Promise<BudgetView | null> {
  try {
    const status = plan.who ? await getBudgetStatus(db, plan.uid, plan.who) : null;
    return status ? toBudgetView(status, plan.budget?.fallback) : null;
  } catch {
    return plan.budget ?? null;
  }
}
