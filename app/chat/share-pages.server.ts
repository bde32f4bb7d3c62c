import { fileResponse } from "~/attachments/upload.server";
import { json, redirect } from "@remix-run/node";
import { z } from "zod";
import { getSessionUser, requireUser, sessionHeaders } from "~/auth/session.server";
import {
  copyShareToConversation,
  createShare,
  getPublicShare,
  isShareId,
  listShares,
  getSharedFile,
  OPEN_SHARES_PER_CONVERSATION,
  revokeShare,
  TooManySharesError,
  type ShareSummary,
} from "~/data/shares.server";
import { hitRateLimit, secondsInWords } from "~/data/rate-limits.server";
import { getConversation } from "~/data/conversations.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { BODY_LIMITS, readForm } from "~/http/body-limit.server";
import { storableString } from "~/text/storable-text";
import { isUuid } from "~/ids/uuid";

/** What the share routes (/s/<id>, /api/conversations/<id>/share, /api/shares/<id>) load and do. */

export const SHARE_DISPLAY_NAME_MAX = 80;

export const TEMPORARY_NOT_SHARED =
  "A temporary chat can't be shared: it is deleted when you leave it. Start an ordinary chat to share one.";

/** A revoked link must stop working at once: no cache may keep a copy, and search engines stay out. */
export const PUBLIC_SHARE_HEADERS = { "X-Robots-Tag": "noindex", "Cache-Control": "no-store" };
const PRIVATE = { "Cache-Control": "private, no-store" };

const shareNotFound = (headers: HeadersInit = PUBLIC_SHARE_HEADERS) =>
  json({ error: "This shared conversation doesn't exist or is no longer shared." }, { status: 404, headers });
const conversationNotFound = () =>
  json({ error: "This conversation doesn't exist." }, { status: 404, headers: PRIVATE });

async function database(): Promise<Db> {
  try {
    return await getDb();
  } catch (error) {
    logBackendFault("postgres", "opening the database for share links", error);
    throw json(
      { error: "Shared conversations can't be reached right now. Please try again shortly." },
      { status: 503 },
    );
  }
}

const createForm = z.object({
  intent: z.literal("create"),
  displayName: storableString()
    .transform((text) => text.replace(/\s+/g, " ").trim())
    .pipe(
      z.string().max(SHARE_DISPLAY_NAME_MAX, `Please keep the name to ${SHARE_DISPLAY_NAME_MAX} characters or fewer.`),
    )
    .optional(),
  // A checkbox: present ("on") when the owner chose to share the conversation's files too.
  includeFiles: z.literal("on").optional(),
});

/** A link as the browser sees it. */
export function shareView(share: ShareSummary) {
  return {
    id: share.id,
    path: `/s/${share.id}`,
    title: share.title,
    displayName: share.displayName,
    conversationId: share.conversationId,
    createdAt: share.createdAt.toISOString(),
    includeFiles: share.includeFiles,
  };
}
export type ShareView = ReturnType<typeof shareView>;

function ownedConversationId(id: string | undefined): string {
  if (!id || !isUuid(id)) throw conversationNotFound();
  return id;
}

/** GET /api/conversations/<id>/share: the conversation's open links (the Share dialog). */
export async function conversationShares(request: Request, conversationId: string | undefined) {
  const session = await requireUser(request);
  const id = ownedConversationId(conversationId);
  const db = await database();
  // Another user's conversation is indistinguishable from one that does not exist.
  if (!(await getConversation(db, session.user.uid, id))) throw conversationNotFound();
  const shares = await listShares(db, session.user.uid, { conversationId: id });
  return json({ shares: shares.map(shareView) }, { headers: PRIVATE });
}

/** POST /api/conversations/<id>/share (intent=create, displayName?): a new link; another user's conversation is a 404. */
export async function shareConversation(request: Request, conversationId: string | undefined) {
  const session = await requireUser(request);
  const id = ownedConversationId(conversationId);
  const form = await readForm(request, BODY_LIMITS.small);
  const parsed = createForm.safeParse(
    Object.fromEntries([...form.entries()].filter(([, value]) => typeof value === "string")),
  );
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    const message = problem?.path[0] === "displayName" ? problem.message : "Unknown action.";
    return json({ error: message }, { status: 400, headers: PRIVATE });
  }
  const displayName = parsed.data.displayName || null;
  const db = await database();
  // A temporary chat is never shared (docs/decisions/085): it is gone once its page is left.
  if ((await getConversation(db, session.user.uid, id))?.temporary) {
    return json({ error: TEMPORARY_NOT_SHARED }, { status: 409, headers: PRIVATE });
  }
  const limit = await hitRateLimit(db, shareRateKey(session.user.uid), SHARES_PER_HOUR, HOUR);
  if (!limit.allowed) {
    const wait = waitInWords(limit.retryAfterSeconds);
    return json(
      { error: `You've made a lot of share links in a short time. Please try again in ${wait}.` },
      { status: 429, headers: { ...PRIVATE, "Retry-After": String(limit.retryAfterSeconds) } },
    );
  }
  let share: ShareSummary | null;
  try {
    share = await createShare(db, {
      uid: session.user.uid,
      conversationId: id,
      displayName,
      includeFiles: parsed.data.includeFiles === "on",
    });
  } catch (error) {
    if (!(error instanceof TooManySharesError)) throw error;
    return json(
      {
        error: `This conversation already has ${OPEN_SHARES_PER_CONVERSATION} open share links. Revoke one (under Shared links on your dashboard) to make another.`,
      },
      { status: 409, headers: PRIVATE },
    );
  }
  if (!share) throw conversationNotFound();
  return json({ share: shareView(share) }, { status: 201, headers: PRIVATE });
}

/**
 * Each link copies the whole conversation (and a revoked one keeps its copy):
 * an account makes at most this many an hour, counted in PostgreSQL for every
 * instance (app/data/rate-limits.server.ts).
 */
export const SHARES_PER_HOUR = 30;
const HOUR = 3600;

export function shareRateKey(uid: string): string {
  return `share:uid:${uid}`;
}

/** "45 seconds", "12 minutes": the wait a refusal names. */
function waitInWords(seconds: number): string {
  if (seconds < 60) return secondsInWords(seconds);
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "a minute" : `${minutes} minutes`;
}

/** POST /api/shares/<id>: revokes the user's link at once; anyone else's (or an unknown one) is a 404. */
export async function revokeShareLink(request: Request, shareId: string | undefined) {
  const session = await requireUser(request);
  if (!isShareId(shareId)) throw shareNotFound(PRIVATE);
  const form = await readForm(request, BODY_LIMITS.small);
  if (form.get("intent") !== "revoke") return json({ error: "Unknown action." }, { status: 400, headers: PRIVATE });
  if (!(await revokeShare(await database(), session.user.uid, shareId))) throw shareNotFound(PRIVATE);
  return json({ ok: true }, { headers: PRIVATE });
}

/** The dashboard's list; null when it cannot be read (the section says so). */
export async function sharesForDashboard(uid: string): Promise<ShareView[] | null> {
  try {
    return (await listShares(await getDb(), uid)).map(shareView);
  } catch (error) {
    logBackendFault("postgres", "listing share links", error);
    return null;
  }
}

/** /s/<id>: the snapshot for anyone, and whether the visitor is signed in (to offer Continue). */
export async function loadPublicShare(request: Request, shareId: string | undefined) {
  if (!isShareId(shareId)) throw shareNotFound();
  const [share, session] = await Promise.all([getPublicShare(await database(), shareId), getSessionUser(request)]);
  if (!share) throw shareNotFound();
  return json(
    {
      share: {
        id: share.id,
        title: share.title,
        displayName: share.displayName,
        createdAt: share.createdAt.toISOString(),
        messages: share.messages,
      },
      signedIn: session.status === "signed-in",
      loginPath: `/login?redirectTo=${encodeURIComponent(`/s/${share.id}`)}`,
    },
    { headers: { ...PUBLIC_SHARE_HEADERS, ...sessionHeaders(session) } },
  );
}

/** POST /s/<id> intent=continue: the visitor's own copy, then opened. Signed out → sign in, back here. */
export async function continueShare(request: Request, shareId: string | undefined) {
  if (!isShareId(shareId)) throw shareNotFound();
  // Signed out: requireUser sends the visitor to sign in and back to the page they posted from (this one).
  const session = await requireUser(request);
  const form = await readForm(request, BODY_LIMITS.small);
  if (form.get("intent") !== "continue")
    return json({ error: "Unknown action." }, { status: 400, headers: PUBLIC_SHARE_HEADERS });
  const copy = await copyShareToConversation(await database(), session.user.uid, shareId);
  if (!copy) throw shareNotFound();
  return redirect(`/nuvara/${copy.conversationId}`);
}

/** GET /s/<id>/files/<attachment id>: a file of a share whose owner included files; 404 otherwise, or once revoked. */
export async function sharedFile(shareId: string | undefined, attachmentId: string | undefined) {
  if (!isShareId(shareId) || !isUuid(attachmentId)) throw shareNotFound();
  const file = await getSharedFile(await database(), shareId, attachmentId);
  if (!file) throw shareNotFound();
  return fileResponse(file, PUBLIC_SHARE_HEADERS);
}
