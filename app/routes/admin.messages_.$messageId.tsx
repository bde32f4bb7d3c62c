import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { isUserInitiatedSameSite } from "~/auth/request.server";
import { requireAdmin } from "~/auth/session.server";
import { ConfirmDelete } from "~/components/admin/confirm-delete";
import { InboxActionButtons } from "~/components/admin/inbox-action-buttons";
import { firstError, formatTime, KIND_LABELS, REASON_LABELS, roleLabel, STATUS_LABELS } from "~/components/admin/labels";
import { senderLabel } from "~/components/admin/sender-label";
import { getInboxMessage, markOpened, withDatabase } from "~/data/inbox.server";
import { fieldErrors, inboxActionSchema, readBody, runInboxAction } from "~/data/inbox-input.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin message");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

function notFound(): never {
  throw json({ error: "That message does not exist or was deleted." }, { status: 404, headers: NO_STORE });
}

// Every loader and action under /admin checks the role freshly (DESIGN.md §1).
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const id = params.messageId ?? "";
  const message = await withDatabase("opening an admin message", async (db) => {
    const found = await getInboxMessage(db, id);
    // Opening a new message marks it read, as a mail client does; a
    // prefetch or another site's link is not the admin reading it.
    if (found?.status === "new" && (isUserInitiatedSameSite(request) || !request.headers.has("Sec-Fetch-Site"))) {
      await markOpened(db, found.id);
      return { ...found, status: "read" as const };
    }
    return found;
  });
  if (!message) notFound();
  return json({ message }, { headers: NO_STORE });
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireAdmin(request);
  const body = await readBody(request);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;
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
    return redirect("/admin/messages", { headers: NO_STORE });
  }
  return json(result, { headers: NO_STORE });
}

export default function AdminMessage() {
  const { message } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const busy = useNavigation().state === "submitting";
  const back = typeof location.state?.back === "string" ? location.state.back : "/admin/messages";
  const exchange = message.exchange;

  return (
    <article className="inbox-message" aria-labelledby="message-title">
      <p>
        <Link to={back}>← Back to messages</Link>
      </p>
      <h1 id="message-title">
        {KIND_LABELS[message.kind] ?? message.kind} from {message.senderEmail}
      </h1>
      <dl className="message-facts">
        <dt>From</dt>
        <dd>
          {message.senderName ? `${message.senderName} · ` : null}
          <a href={`mailto:${message.senderEmail}`}>{message.senderEmail}</a>
          {` (${senderLabel(message)})`}
        </dd>
        <dt>Role when sent</dt>
        <dd>{roleLabel(message.senderRole)}</dd>
        <dt>Received</dt>
        <dd>
          <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
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
          <h3>Assistant&apos;s reply</h3>
          <blockquote className="message-text">{exchange.assistantText || "(empty)"}</blockquote>
        </section>
      ) : null}

      {actionData && "confirmDelete" in actionData ? <ConfirmDelete ids={actionData.confirmDelete} cancelTo={location.pathname} /> : null}
      <div aria-live="polite">
        {actionData && "notice" in actionData ? <p className="form-notice" role="status">{actionData.notice}</p> : null}
        {actionData && "fieldErrors" in actionData ? (
          <p className="form-error" role="alert">{firstError(actionData.fieldErrors)}</p>
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
