import {
  json,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData, useLocation, type ClientActionFunctionArgs } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { ConfirmDelete } from "~/components/admin/confirm-delete";
import { firstError } from "~/components/admin/labels";
import { InboxFilters } from "~/components/admin/inbox-filters";
import { listSearch, summarise } from "~/components/admin/inbox-summary";
import { InboxTable } from "~/components/admin/inbox-table";
import { listInbox } from "~/data/inbox.server";
import { withDatabase } from "~/http/with-database.server";
import { inboxActionSchema, runInboxAction } from "~/data/inbox-input.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { inboxQuerySchema as querySchema } from "~/data/inbox-query.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin messages");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

// Every loader and action under /admin checks the role freshly, never from the auth caches (ADR 002).
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = querySchema.safeParse(params);
  if (!parsed.success)
    throw json(
      { error: firstError(fieldErrors(parsed.error)), fieldErrors: fieldErrors(parsed.error) },
      { status: 400, headers: NO_STORE },
    );
  const query = parsed.data;
  const page = await withDatabase("listing admin messages", (db) => listInbox(db, query));
  // A line of each message, not its whole text (nor a report's whole exchange).
  const rows = page.messages.map((message) => ({
    id: message.id,
    kind: message.kind,
    status: message.status,
    senderEmail: message.senderEmail,
    senderName: message.senderName,
    senderRole: message.senderRole,
    senderUid: message.senderUid,
    senderVerified: message.senderVerified,
    reportReason: message.reportReason,
    createdAt: message.createdAt.toISOString(),
    ...summarise(message),
  }));
  // "5 min ago" is rendered against the server's clock, so hydration agrees (RelativeTime).
  return json(
    { query, page: { messages: rows, older: page.older, newer: page.newer }, now: new Date().toISOString() },
    { headers: NO_STORE },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  const body = await readBody(request);
  // Thrown, not returned: the error boundary says what was wrong with the request.
  if ("refusal" in body) throw body.refusal;
  const parsed = inboxActionSchema.safeParse(body.fields);
  if (!parsed.success) return json({ fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  try {
    const result = await withDatabase("changing admin messages", (db) => runInboxAction(db, parsed.data));
    return json(result, { headers: NO_STORE });
  } catch (error) {
    // Returned, not thrown: the list has already shown the change; it puts
    // the rows back and says why, rather than swapping the page for an error.
    if (!(error instanceof Response)) throw error;
    const { error: message } = (await error.json()) as { error: string };
    return json({ error: message }, { status: error.status, headers: NO_STORE });
  }
}

/**
 * In the browser, a request that never reached the action (the network, a
 * proxy's error page) or was refused before it (a thrown 4xx) is answered
 * like the action's own failures: the list puts its rows back and says why,
 * instead of the page turning into an error page.
 */
export async function clientAction({ serverAction }: ClientActionFunctionArgs) {
  try {
    return await serverAction<typeof action>();
  } catch (error) {
    if (error instanceof Response) {
      if (error.status >= 300 && error.status < 400) throw error;
      const body = (await error.json().catch(() => null)) as { error?: unknown } | null;
      return { error: typeof body?.error === "string" ? body.error : `The server answered ${error.status}.` };
    }
    return {
      error: "The server could not be reached, or its answer did not arrive. Check the connection and try again.",
    };
  }
}

export default function AdminMessages() {
  const { query, page, now } = useLoaderData<typeof loader>();
  // Without JavaScript the form posts as a page: its answer arrives here.
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const here = `${location.pathname}${location.search}`;

  const pageLink = (cursorName: "after" | "before", value: string) => {
    const params = new URLSearchParams(location.search);
    params.delete("after");
    params.delete("before");
    params.set(cursorName, value);
    return `?${params}`;
  };

  return (
    <>
      <h1>Admin messages</h1>
      <InboxFilters query={query} />
      {actionData && "confirmDelete" in actionData ? (
        <ConfirmDelete ids={actionData.confirmDelete} cancelTo={here} />
      ) : null}
      <div aria-live="polite">
        {actionData && "notice" in actionData ? (
          <p className="form-notice" role="status">
            {actionData.notice}
          </p>
        ) : null}
        {actionData && "fieldErrors" in actionData ? (
          <p className="form-error" role="alert">
            {firstError(actionData.fieldErrors)}
          </p>
        ) : null}
        {actionData && "error" in actionData ? (
          <p className="form-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
      </div>
      <InboxTable
        messages={page.messages}
        statusFilter={query.status}
        linkSearch={listSearch(query)}
        now={now}
        empty={
          query.q || query.kind || query.status !== "inbox" ? "No messages match these filters." : "No messages yet."
        }
      />
      {page.newer || page.older ? (
        <nav aria-label="Pages" className="pager">
          {page.newer ? <Link to={pageLink("before", page.newer)}>← Newer messages</Link> : <span />}
          {page.older ? <Link to={pageLink("after", page.older)}>Older messages →</Link> : null}
        </nav>
      ) : null}
    </>
  );
}
