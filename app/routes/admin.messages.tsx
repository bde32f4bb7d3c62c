import {
  json,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { requireAdmin } from "~/auth/session.server";
import { ConfirmDelete } from "~/components/admin/confirm-delete";
import { firstError } from "~/components/admin/labels";
import { InboxActionButtons } from "~/components/admin/inbox-action-buttons";
import { InboxFilters } from "~/components/admin/inbox-filters";
import { InboxTable } from "~/components/admin/inbox-table";
import { listInbox, withDatabase } from "~/data/inbox.server";
import { fieldErrors, inboxActionSchema, readBody, runInboxAction } from "~/data/inbox-input.server";
import { inboxQuerySchema as querySchema } from "~/data/inbox-query.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin messages");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

// Every loader and action under /admin checks the role freshly (DESIGN.md §1).
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = querySchema.safeParse(params);
  if (!parsed.success) throw json({ error: firstError(fieldErrors(parsed.error)), fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  const query = parsed.data;
  const page = await withDatabase("listing admin messages", (db) => listInbox(db, query));
  return json({ query, page }, { headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  const body = await readBody(request);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;
  const parsed = inboxActionSchema.safeParse(body.fields);
  if (!parsed.success) return json({ fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  const result = await withDatabase("changing admin messages", (db) => runInboxAction(db, parsed.data));
  return json(result, { headers: NO_STORE });
}

export default function AdminMessages() {
  const { query, page } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const busy = useNavigation().state === "submitting";
  const here = `${location.pathname}${location.search}`;
  const formRef = useRef<HTMLFormElement>(null);
  // A done action clears the selection: its rows may be gone or moved.
  useEffect(() => {
    if (actionData && "ok" in actionData) formRef.current?.reset();
  }, [actionData]);

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
      {actionData && "confirmDelete" in actionData ? <ConfirmDelete ids={actionData.confirmDelete} cancelTo={here} /> : null}
      <div aria-live="polite">
        {actionData && "notice" in actionData ? <p className="form-notice" role="status">{actionData.notice}</p> : null}
        {actionData && "fieldErrors" in actionData ? (
          <p className="form-error" role="alert">{firstError(actionData.fieldErrors)}</p>
        ) : null}
      </div>
      {page.messages.length === 0 ? (
        <p className="empty">{query.q || query.kind || query.status !== "inbox" ? "No messages match these filters." : "No messages yet."}</p>
      ) : (
        <Form ref={formRef} method="post" className="bulk-form">
          <div className="bulk-actions" role="group" aria-label="Actions on selected messages">
            <InboxActionButtons read="both" archived={query.status === "archived"} busy={busy} />
          </div>
          <InboxTable messages={page.messages} search={location.search} />
        </Form>
      )}
      {page.newer || page.older ? (
        <nav aria-label="Pages" className="pager">
          {page.newer ? <Link to={pageLink("before", page.newer)}>← Newer messages</Link> : <span />}
          {page.older ? <Link to={pageLink("after", page.older)}>Older messages →</Link> : null}
        </nav>
      ) : null}
    </>
  );
}
