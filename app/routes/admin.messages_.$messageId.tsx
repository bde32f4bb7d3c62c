import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { isUserInitiatedSameSite } from "~/auth/request.server";
import { requireAdmin } from "~/auth/session.server";
import { ConfirmDelete } from "~/components/admin/confirm-delete";
import { InboxActionButtons } from "~/components/admin/inbox-action-buttons";
import { listSearch } from "~/components/admin/inbox-summary";
import { firstError, KIND_LABELS, REASON_LABELS, STATUS_LABELS } from "~/components/admin/labels";
import { roleName } from "~/components/admin/roles";
import { MessagePager } from "~/components/admin/message-pager";
import { ReplyForm, ReplyThread } from "~/components/admin/reply-thread";
import { senderLabel } from "~/components/admin/sender-label";
import { Markdown } from "~/components/chat/markdown";
import { ThumbIcon } from "~/components/chat/thumb-icon";
import { ExactTime, RelativeTime } from "~/components/time/relative-time";
import { getConfig } from "~/config.server";
import {
  conversationOpenings,
  listReplies,
  replySchema,
  replyToMessage,
  reporterRating,
} from "~/data/inbox-replies.server";
import { getInboxMessage, inboxNeighbours, markOpened } from "~/data/inbox.server";
import { withDatabase } from "~/http/with-database.server";
import { inboxActionSchema, runInboxAction } from "~/data/inbox-input.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { inboxQuerySchema } from "~/data/inbox-query.server";
import { pageTitle } from "~/meta";
import chatStyles from "~/styles/chat.css";

export const meta: MetaFunction = () => pageTitle("Admin message");

// The reported reply is rendered as the chat renders it, with the chat's Markdown styles.
export const links: LinksFunction = () => [{ rel: "stylesheet", href: chatStyles }];

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

function notFound(): never {
  throw json({ error: "That message does not exist or was deleted." }, { status: 404, headers: NO_STORE });
}

/** The list the admin came from (its filters ride in the address), for Back and j/k; a bad one is the default list. */
function listQuery(request: Request) {
  const parsed = inboxQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  const query = parsed.success ? parsed.data : inboxQuerySchema.parse({});
  return { status: query.status, kind: query.kind, q: query.q };
}

// Every loader and action under /admin checks the role freshly, never from the auth caches (ADR 002).
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const id = params.messageId ?? "";
  const query = listQuery(request);
  const found = await withDatabase("opening an admin message", async (db) => {
    const message = await getInboxMessage(db, id);
    if (!message) return undefined;
    // Opening a new message marks it read, as a mail client does; a
    // prefetch or another site's link is not the admin reading it.
    let opened = message;
    if (message.status === "new" && (isUserInitiatedSameSite(request) || !request.headers.has("Sec-Fetch-Site"))) {
      await markOpened(db, message.id);
      opened = { ...message, status: "read" as const };
    }
    const isReport = message.kind === "report";
    const [neighbours, replies, rating, openings] = await Promise.all([
      inboxNeighbours(db, query, message.id),
      listReplies(db, message.id),
      isReport ? reporterRating(db, message) : Promise.resolve(null),
      isReport ? conversationOpenings(db, message.id) : Promise.resolve([]),
    ]);
    return { message: opened, neighbours, replies, rating, openings };
  });
  if (!found) notFound();
  const search = listSearch(query);
  return json(
    {
      ...found,
      back: `/admin/messages${search}`,
      previous: found.neighbours.previous ? `/admin/messages/${found.neighbours.previous}${search}` : undefined,
      next: found.neighbours.next ? `/admin/messages/${found.neighbours.next}${search}` : undefined,
      emailConfigured: Boolean(getConfig().smtp),
      now: new Date().toISOString(),
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const body = await readBody(request);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;

  if (body.fields.intent === "reply") {
    const parsed = replySchema.safeParse(body.fields);
    const typed = typeof body.fields.reply === "string" ? body.fields.reply : "";
    if (!parsed.success)
      return json(
        { fieldErrors: fieldErrors(parsed.error), reply: typed, refused: true as const },
        { status: 400, headers: NO_STORE },
      );
    const message = await withDatabase("opening an admin message", (db) => getInboxMessage(db, params.messageId ?? ""));
    if (!message) notFound();
    const outcome = await replyToMessage(
      { uid: admin.user.uid, email: admin.user.email ?? "" },
      message,
      parsed.data.reply,
    );
    return json(outcome, { headers: NO_STORE });
  }

  // The message is the one in the address; a posted id list is ignored.
  const parsed = inboxActionSchema.safeParse({ ...body.fields, ids: [params.messageId ?? ""] });
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    if (errors.ids) notFound();
    return json({ fieldErrors: errors }, { status: 400, headers: NO_STORE });
  }
  const result = await withDatabase("changing an admin message", (db) => runInboxAction(db, parsed.data));
  if ("ok" in result && result.count === 0) notFound();
  // Deleted, it is gone; marked unread, reading on here would mark it read again.
  if ("ok" in result && (result.intent === "delete" || result.intent === "mark-unread")) {
    return redirect(`/admin/messages${listSearch(listQuery(request))}`, { headers: NO_STORE });
  }
  return json(result, { headers: NO_STORE });
}

export default function AdminMessage() {
  const { message, back, previous, next, replies, rating, openings, emailConfigured, now } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const busy = useNavigation().state === "submitting";
  const exchange = message.exchange;
  const subject = message.kind === "report" ? "Re: your report on an assistant reply" : "Re: your message";
  const mailto = `mailto:${message.senderEmail}?subject=${encodeURIComponent(subject)}`;
  const here = `${location.pathname}${location.search}`;
  // The union's "in" narrowing does not survive Jsonify: the refused reply's shape, said once.
  const refused =
    actionData && "refused" in actionData
      ? (actionData as unknown as { reply: string; fieldErrors: Record<string, string> })
      : undefined;
  const posted = refused
    ? { reply: refused.reply, error: firstError(refused.fieldErrors) }
    : actionData && "replied" in actionData
      ? "error" in actionData
        ? { error: actionData.error }
        : { notice: actionData.notice }
      : undefined;

  return (
    <article className="inbox-message" aria-labelledby="message-title">
      <MessagePager back={back} previous={previous} next={next} />
      <h1 id="message-title">
        {KIND_LABELS[message.kind] ?? message.kind} from {message.senderEmail}
      </h1>
      <dl className="message-facts">
        <dt>From</dt>
        <dd>
          {message.senderName ? `${message.senderName} · ` : null}
          <a href={mailto}>{message.senderEmail}</a>
          {` (${senderLabel(message)})`}
        </dd>
        <dt>Role when sent</dt>
        <dd>{roleName(message.senderRole)}</dd>
        <dt>Received</dt>
        <dd>
          <RelativeTime value={message.createdAt} now={now} />
          <span className="fine-print">
            {" · "}
            <ExactTime value={message.createdAt} />
          </span>
        </dd>
        <dt>Status</dt>
        <dd>{STATUS_LABELS[message.status] ?? message.status}</dd>
        {message.reportReason ? (
          <>
            <dt>Reason</dt>
            <dd>{REASON_LABELS[message.reportReason] ?? message.reportReason}</dd>
          </>
        ) : null}
      </dl>

      <section aria-labelledby="message-text-title">
        <h2 id="message-text-title">{message.kind === "report" ? "Comment" : "Message"}</h2>
        {/* Rendered as text by React: markup a sender typed shows as typed and never runs. */}
        <p className="message-text">{message.body || "(no comment)"}</p>
      </section>

      {exchange ? (
        <section aria-labelledby="exchange-title" className="exchange">
          <h2 id="exchange-title">Reported exchange</h2>
          <h3>User&apos;s message</h3>
          <blockquote className="message-text">{exchange.userText || "(empty)"}</blockquote>
          {exchange.attachmentNames?.length ? (
            <p className="reported-files">Files sent with it: {exchange.attachmentNames.join(", ")}</p>
          ) : null}
          <div className="reported-reply-head">
            <h3>Assistant&apos;s reply</h3>
            <p className="reporter-rating">
              {rating === null ? (
                "Not rated by the user"
              ) : (
                <>
                  {/* The SVG thumb, not an emoji: not every system has an emoji font. */}
                  <ThumbIcon down={rating === -1} /> Rated {rating === 1 ? "good" : "bad"} by the user
                </>
              )}
            </p>
          </div>
          {/* As the conversation showed it: the chat's safe Markdown (no raw HTML, safe links only). */}
          <div className="reported-reply" aria-label="Assistant's reply as shown">
            <Markdown>{exchange.assistantText || "(empty)"}</Markdown>
          </div>
          {exchange.conversationId && message.senderUid ? (
            <p>
              <Link to={`/admin/messages/${message.id}/conversation`}>Open the whole conversation (read-only)</Link>
              <span className="fine-print"> · each opening is recorded in the admin audit log</span>
            </p>
          ) : null}
          {openings.length > 0 ? (
            <details className="openings">
              <summary>Conversation opened {openings.length === 1 ? "once" : `${openings.length} times`}</summary>
              <ul>
                {openings.map((opening, index) => (
                  <li key={index}>
                    {opening.actorEmail}, <RelativeTime value={opening.createdAt} now={now} />
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </section>
      ) : null}

      {replies.length > 0 ? (
        <section aria-labelledby="thread-title" className="thread">
          <h2 id="thread-title">{replies.length === 1 ? "1 reply" : `${replies.length} replies`}</h2>
          <ReplyThread replies={replies} to={message.senderEmail} now={now} />
        </section>
      ) : null}
      <ReplyForm
        key={message.id}
        to={message.senderEmail}
        emailConfigured={emailConfigured}
        mailto={mailto}
        posted={posted}
      />

      {actionData && "confirmDelete" in actionData ? (
        <ConfirmDelete ids={actionData.confirmDelete} cancelTo={here} />
      ) : null}
      <div aria-live="polite">
        {actionData && "notice" in actionData && !("replied" in actionData) ? (
          <p className="form-notice" role="status">
            {actionData.notice}
          </p>
        ) : null}
        {actionData && "fieldErrors" in actionData && !("refused" in actionData) ? (
          <p className="form-error" role="alert">
            {firstError(actionData.fieldErrors)}
          </p>
        ) : null}
      </div>
      <Form method="post" className="actions" aria-label="Actions on this message">
        <InboxActionButtons
          read={message.status === "new" ? "mark-read" : "mark-unread"}
          archived={message.status === "archived"}
          busy={busy}
        />
      </Form>
    </article>
  );
}
