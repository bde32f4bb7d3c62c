import { json, redirect } from "@remix-run/node";
import { isSameOrigin } from "~/auth/request.server";
import { requireUser, type SignedIn } from "~/auth/session.server";
import {
  deleteConversation,
  deleteTemporaryConversation,
  getConversation,
  listConversations,
  listFolders,
  MAX_TITLE_LENGTH,
  moveToFolder,
  renameConversation,
  setArchived,
  setConversationModel,
  setPinned,
  type ConversationView,
} from "~/data/conversations.server";
import { feedbackIntent, ratingsFor } from "~/data/feedback.server";
import { verifyEmailPrompt } from "~/data/verify-email-prompt.server";
import { getConversationWithMessages, showBranch, shownBranch, toChatMessage } from "~/data/messages.server";
import { getCustomInstructions, setCustomInstructions } from "~/data/preferences.server";
import { listProjects } from "~/data/projects.server";
import { getQuotaStatus, messageMaxCharsFor } from "~/data/quotas.server";
import { fallbackModelFor, getBudgetStatus } from "~/data/budgets.server";
import { toBudgetView } from "~/budgets/budget-text";
import { upgradeUrl } from "~/billing/plans.server";
import { attachmentLimitsFor } from "~/attachments/limits.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { BODY_LIMITS, readForm } from "~/http/body-limit.server";
import { getModelRegistry, modelsForRole, type ModelRegistry } from "~/llm/models.server";
import { builtInTools } from "~/llm/tools.server";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { checkCustomInstructions } from "./custom-instructions";
import { firstReplyFailed, runningRuns, type RunRow } from "./runs/run-store.server";
import { ensureSweeper } from "./runs/runs.server";
import { ensureTemporarySweeper } from "./temporary-chats.server";
import { ensureImportWorker } from "~/data/import/import-jobs.server";
import { changeChatTool, chatToolMenu } from "./chat-tools.server";
import { organiseIntent } from "./organise-actions.server";
import { isProjectIntent, moveChatToProject, projectIntent } from "./projects-page.server";
import { publishConversationEvent } from "./live/conversation-events.server";
import { attachmentHeader, conversationToMarkdown, exportFileName } from "./markdown-export";
import { isUuid } from "~/ids/uuid";
import { wantsNotices } from "~/data/push-subscriptions.server";

/** What the /nuvara routes load and do; the route modules stay thin. */

const MAX_SEARCH_LENGTH = 200;

const UNREACHABLE = "Your conversations can't be reached right now. Please try again shortly.";

async function database(): Promise<Db> {
  try {
    return await getDb();
  } catch (error) {
    logBackendFault("postgres", "opening the database for the assistant", error);
    throw json({ error: UNREACHABLE }, { status: 503 });
  }
}

/**
 * The page's reads, answering 503 when the database fails or passes its
 * deadline (the pool's query_timeout, app/db/client.server.ts) rather than
 * a 500: the same page as when it cannot be opened. A Response thrown on
 * purpose (a redirect, a 404) goes through as it is.
 */
async function fromDatabase<T>(context: string, reads: Promise<T>): Promise<T> {
  try {
    return await reads;
  } catch (error) {
    if (error instanceof Response) throw error;
    logBackendFault("postgres", context, error);
    throw json({ error: UNREACHABLE }, { status: 503 });
  }
}

/** An action changes data in the user's name: another site must not trigger it. */
function requireSameOrigin(request: Request) {
  if (!isSameOrigin(request)) throw json({ error: "Cross-origin requests are refused." }, { status: 403 });
}

const notFound = () => json({ error: "This conversation doesn't exist." }, { status: 404 });

/** The /nuvara layout's answer: what loadAssistant reads, and whether to ask for the address to be verified. */
export async function chatLayoutPage(request: Request) {
  const assistant = await loadAssistant(request);
  // A new account lands here (app/auth/login-reason.ts): it is told to verify its address.
  const verifyEmail = await verifyEmailPrompt(assistant.user);
  return json({ ...assistant, verifyEmail }, { headers: { "Cache-Control": "private, no-store" } });
}

/** ?view=archived: the archived chats instead of those in use (docs/decisions/085). */
function viewOf(url: URL): ConversationView {
  return url.searchParams.get("view") === "archived" ? "archived" : "active";
}

/** The layout: conversation list (searched, or the archived view), folders, projects, quota, models, instructions. */
export async function loadAssistant(request: Request) {
  const session = await requireUser(request);
  const url = new URL(request.url);
  const search = (url.searchParams.get("q") ?? "").trim().slice(0, MAX_SEARCH_LENGTH);
  const view = viewOf(url);
  // A NUL in the query would fail it (a 500): a clear 400 instead (docs/security.md).
  if (!isStorableText(search)) throw json({ error: UNSTORABLE_TEXT_MESSAGE }, { status: 400 });
  const db = await database();
  const uid = session.user.uid;
  ensureTemporarySweeper(db); // any instance serving the assistant deletes temporary chats left behind
  ensureImportWorker(db); // and takes up an import whose instance stopped (docs/decisions/104)
  const [conversations, folders, projects, quota, budget, customInstructions, registry, running, chatTools, notices] =
    await fromDatabase(
      search ? "searching the conversations" : "listing the conversations",
      Promise.all([
        listConversations(db, uid, { search, view }),
        listFolders(db, uid),
        listProjects(db, uid),
        getQuotaStatus(db, uid, session),
        getBudgetStatus(db, uid, session),
        getCustomInstructions(db, uid),
        getModelRegistry(),
        runningFor(db, uid),
        chatToolMenu(db, session),
        wantsNotices(db, uid),
      ]),
    );
  // The run's id with its mark: the live list clears it when it hears that run end (docs/decisions/086).
  const writing = new Map(running.toReversed().map((run) => [run.conversationId, run.id])); // newest wins
  const listed = new Set(conversations.map((item) => item.id));
  // A new chat whose first reply is still being written is not stored yet, but it is listed (docs/decisions/070).
  // A temporary chat is never listed (docs/decisions/085), nor is anything in the archived view.
  const pending =
    search || view === "archived"
      ? []
      : running
          .filter((run) => !listed.has(run.conversationId) && run.exchange.create && !run.exchange.create.temporary)
          .map((run) => ({
            id: run.conversationId,
            title: run.exchange.create?.title ?? run.exchange.title,
            updatedAt: run.startedAt.toISOString(),
            writing: true,
            runId: run.id,
            pending: true,
            projectId: run.exchange.create?.projectId ?? null,
          }));
  return {
    user: session.user,
    role: session.role,
    search,
    view,
    folders,
    projects,
    conversations: [
      ...pending,
      ...conversations.map((item) => ({
        id: item.id,
        title: item.title,
        updatedAt: item.updatedAt.toISOString(),
        pinned: item.pinned,
        archived: item.archived,
        folderId: item.folderId,
        projectId: item.projectId,
        ...(writing.has(item.id) ? { writing: true, runId: writing.get(item.id) } : {}),
      })),
    ],
    quota: {
      limit: quota.limit,
      remaining: quota.remaining,
      resetsAt: quota.resetsAt.toISOString(),
      budget: budget && toBudgetView(budget, fallbackLabel(registry, session)),
      upgradeUrl: upgradeUrl(),
    },
    /** The longest message this user may send (MESSAGE_MAX_CHARS for their role), for the composer. */
    messageMaxChars: messageMaxCharsFor(session),
    /** What the composer checks before uploading (the server checks again): ATTACHMENT_MAX_MB, ATTACHMENTS_PER_MESSAGE. */
    attachmentLimits: attachmentLimitsFor(session),
    customInstructions,
    /** The user is told when a reply is done: this tab reports whether it is visible (docs/decisions/101). */
    notices,
    models: modelsForRole(registry, session),
    toolNames: Object.fromEntries(builtInTools().map((tool) => [tool.id, tool.name])),
    /** What the composer's tools menu lists: every tool this user may use now, by group. */
    chatTools,
  };
}

/** POST /nuvara: the custom instructions, projects (docs/decisions/106), or organising the list (folders, several chats at once). */
export async function changeChats(request: Request) {
  requireSameOrigin(request);
  const session = await requireUser(request);
  const form = await readForm(request, BODY_LIMITS.message);
  if (form.get("intent") === "instructions") return updateInstructions(session, form);
  if (isProjectIntent(form.get("intent"))) return projectIntent(await database(), session.user.uid, form);
  return organiseIntent(await database(), session.user.uid, form);
}

async function updateInstructions(session: SignedIn, form: FormData) {
  const text = String(form.get("instructions") ?? "");
  // Unstorable text would fail the save with a 500: a clear 400 instead (docs/security.md).
  const problem = isStorableText(text) ? checkCustomInstructions(text) : UNSTORABLE_TEXT_MESSAGE;
  if (problem) return json({ error: problem }, { status: 400 });
  await setCustomInstructions(await database(), session.user.uid, text);
  return json({ ok: true });
}

async function ownConversation(
  request: Request,
  id: string | undefined,
): Promise<{ session: SignedIn; db: Db; id: string }> {
  const session = await requireUser(request);
  // Not a UUID: no conversation has that id (and PostgreSQL would refuse to compare).
  if (!id || !isUuid(id)) throw notFound();
  return { session, db: await database(), id };
}

/** The user's replies being written, for the list's "still writing…" (none when the store cannot say). */
async function runningFor(db: Db, uid: string, conversationId?: string): Promise<RunRow[]> {
  ensureSweeper(db); // any instance serving the assistant settles runs whose instance died
  try {
    return await runningRuns(db, uid, conversationId);
  } catch (error) {
    logBackendFault("postgres", "listing replies being written", error);
    return [];
  }
}

/** A reply being written, as the page needs it to show the question and follow the reply (docs/decisions/070). */
function runView(run: RunRow | undefined) {
  if (!run) return null;
  return {
    runId: run.id,
    userMessage: {
      id: run.userMessageId,
      text: run.exchange.user.text,
      kind: run.exchange.kind,
      parentId: run.exchange.parentId,
    },
    model: run.model,
  };
}

/** One conversation and its transcript; another user's is a 404. */
export async function loadConversation(request: Request, conversationId: string | undefined) {
  const { session, db, id } = await ownConversation(request, conversationId);
  const [found, running] = await Promise.all([
    getConversationWithMessages(db, session.user.uid, id),
    runningFor(db, session.user.uid, id),
  ]);
  const run = running[0];
  if (!found) {
    // A new chat whose first reply is being written: shown, though stored only with that reply.
    // One whose first reply failed was never stored: back to a new chat (the browser keeps the text).
    if (!run?.exchange.create)
      throw (await firstReplyFailed(db, session.user.uid, id)) ? redirect("/nuvara") : notFound();
    return {
      conversation: {
        id,
        title: run.exchange.create.title ?? run.exchange.title,
        temporary: Boolean(run.exchange.create.temporary),
        model: run.model,
        customInstructions: run.exchange.create.customInstructions,
        hasToolInstructions: Boolean(run.exchange.create.systemPrompt),
        toolsOff: run.exchange.toolsOff ?? [],
        leafId: null,
      },
      isNew: true,
      messages: [],
      feedback: {},
      running: runView(run),
    };
  }
  const { conversation, messages: rows } = found;
  return {
    isNew: false,
    running: runView(run),
    conversation: {
      id: conversation.id,
      title: conversation.title,
      temporary: conversation.temporary,
      model: conversation.model,
      customInstructions: conversation.customInstructions,
      hasToolInstructions: Boolean(conversation.systemPrompt),
      toolsOff: conversation.toolsOff ?? [],
      // The branch shown: the page shows the path to it, and every version's ‹ n/m › (docs/decisions/069).
      leafId: shownBranch(conversation, rows).at(-1)?.id ?? null,
    },
    // All versions (the message tree), each knowing its parent.
    messages: rows.map(toChatMessage),
    // The owner's 👍/👎, shown pressed under those replies.
    feedback: await ratingsFor(
      db,
      session.user.uid,
      rows.filter((row) => row.role === "assistant").map((row) => row.id),
    ),
  };
}

/** Rename, delete, pin, archive, file, put in a project, or change the model or the tools of a conversation; another user's is a 404. */
export async function changeConversation(request: Request, conversationId: string | undefined) {
  requireSameOrigin(request);
  const { session, db, id } = await ownConversation(request, conversationId);
  const uid = session.user.uid;
  const form = await readForm(request, BODY_LIMITS.small);
  const intent = form.get("intent");
  // A temporary chat's page was left (docs/decisions/085): one not stored yet, or already gone, is no error.
  if (intent === "leave") return json({ ok: true, deleted: await deleteTemporaryConversation(db, uid, id) });
  const conversation = await getConversation(db, uid, id);
  if (!conversation) throw notFound();

  if (intent === "rename") {
    const title = String(form.get("title") ?? "")
      .replace(/\s+/g, " ")
      .trim();
    if (!title) return json({ error: "Please enter a title." }, { status: 400 });
    if (!isStorableText(title)) return json({ error: UNSTORABLE_TEXT_MESSAGE }, { status: 400 });
    if (title.length > MAX_TITLE_LENGTH) {
      return json({ error: `Please keep the title to ${MAX_TITLE_LENGTH} characters or fewer.` }, { status: 400 });
    }
    if (!(await renameConversation(db, uid, id, title))) throw notFound();
    await publishConversationEvent(db, uid, { type: "title", conversationId: id, title, generating: false });
    return json({ ok: true });
  }
  if (intent === "delete") {
    if (!(await deleteConversation(db, uid, id))) throw notFound();
    await publishConversationEvent(db, uid, { type: "deleted", conversationId: id });
    return json({ ok: true });
  }
  if (intent === "pin" || intent === "unpin") {
    if (!(await setPinned(db, uid, id, intent === "pin"))) throw notFound();
    return json({ ok: true });
  }
  if (intent === "archive" || intent === "restore") {
    if ((await setArchived(db, uid, [id], intent === "archive")) === 0) throw notFound();
    return json({ ok: true });
  }
  if (intent === "move") {
    const folder = String(form.get("folder") ?? "");
    if (folder !== "" && !isUuid(folder)) return json({ error: FOLDER_GONE }, { status: 400 });
    if (!(await moveToFolder(db, uid, id, folder || null))) return json({ error: FOLDER_GONE }, { status: 400 });
    return json({ ok: true });
  }
  if (intent === "project") return moveChatToProject(db, uid, conversation, form);
  if (intent === "model") {
    const model = String(form.get("model") ?? "");
    const allowed = modelsForRole(await getModelRegistry(), session);
    if (!allowed.some((option) => option.id === model)) {
      return json({ error: `The model "${model}" isn't available to you.` }, { status: 400 });
    }
    if (!(await setConversationModel(db, uid, id, model))) throw notFound();
    return json({ ok: true });
  }
  if (intent === "tool") return changeChatTool(db, uid, id, form);
  if (intent === "feedback") return feedbackIntent(db, uid, id, form);
  if (intent === "branch") {
    // Another version shown (‹ n/m ›): kept, so a reload, the export and a share show it too.
    const message = String(form.get("message") ?? "");
    if (!isUuid(message) || !(await showBranch(db, uid, id, message))) {
      return json({ error: "That version isn't part of this conversation." }, { status: 400 });
    }
    return json({ ok: true });
  }
  return json({ error: "Unknown action." }, { status: 400 });
}

const FOLDER_GONE = "That folder doesn't exist any more. Reload the page to see your folders.";

/** The conversation as a Markdown file; a temporary chat is never exported (docs/decisions/085). */
export async function exportConversation(request: Request, conversationId: string | undefined) {
  const { session, db, id } = await ownConversation(request, conversationId);
  const found = await getConversationWithMessages(db, session.user.uid, id);
  if (!found) throw notFound();
  const { conversation, messages: rows } = found;
  if (conversation.temporary) {
    return json({ error: "A temporary chat isn't saved, so it can't be exported." }, { status: 409 });
  }
  const markdown = conversationToMarkdown({
    title: conversation.title,
    createdAt: conversation.createdAt,
    // The branch shown, as on the page.
    messages: shownBranch(conversation, rows).map(toChatMessage),
  });
  return new Response(markdown, {
    headers: {
      "Content-Type": "text/markdown; charset=utf-8",
      "Content-Disposition": attachmentHeader(exportFileName(conversation.title)),
      "Cache-Control": "private, no-store",
    },
  });
}

/** The fallback model's name, if the role has one on offer (shown once a budget is spent). */
function fallbackLabel(registry: ModelRegistry, who: { role: string; isAdmin: boolean }): string | undefined {
  const id = fallbackModelFor(who);
  return id ? registry.models.find((model) => model.id === id)?.label : undefined;
}
