import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { firstError } from "~/components/admin/labels";
import { RoleAuditTable } from "~/components/admin/role-audit-table";
import { UsersTable } from "~/components/admin/users-table";
import { getConfig } from "~/config.server";
import { recentRoleChanges } from "~/data/audit.server";
import { changeRole, LastAdminError, listUsersForAdmin, type RoleChangeResult } from "~/data/admin-users.server";
import { roleChangeSchema, usersQuerySchema as querySchema } from "~/data/admin-users-input.server";
import { withDatabase } from "~/data/inbox.server";
import { fieldErrors, readBody } from "~/data/inbox-input.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin users");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

function unavailable(context: string, error: unknown): never {
  logBackendFault("admin", context, error);
  throw json({ error: "The user directory is unavailable right now. Please try again shortly." }, { status: 503, headers: NO_STORE });
}

// Every loader and action under /admin checks the role freshly (DESIGN.md §1).
export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireAdmin(request);
  const parsed = querySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw json({ error: firstError(fieldErrors(parsed.error)) }, { status: 400, headers: NO_STORE });
  const { q, page } = parsed.data;
  const [listing, changes] = await Promise.all([
    listUsersForAdmin({ q, pageToken: page }).catch((error) => unavailable("listing users", error)),
    withDatabase("reading role changes", (db) => recentRoleChanges(db)),
  ]);
  return json({ me: user.email, q: q ?? "", listing, changes }, { headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const body = await readBody(request, BODY_LIMITS.small);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;
  const parsed = roleChangeSchema.safeParse(body.fields);
  if (!parsed.success) {
    const email = typeof body.fields.email === "string" ? body.fields.email : null;
    return json({ email, fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  }
  const { email, role } = parsed.data;
  const actor = { uid: user.uid, email: user.email ?? "" };
  let result: RoleChangeResult;
  try {
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    result = await changeRole(db, actor, email, role);
  } catch (error) {
    if (error instanceof LastAdminError) {
      return json({ email, fieldErrors: { role: error.message } }, { status: 409, headers: NO_STORE });
    }
    unavailable("changing a role", error);
  }
  // An admin who gave up their own admin role can no longer see this page.
  if (result.changed && result.email === actor.email.toLowerCase() && result.newRole !== "admin") {
    return redirect("/", { headers: NO_STORE });
  }
  const notice = result.changed
    ? `${result.email}: role changed from ${result.oldRole || "none"} to ${result.newRole || "none"}.`
    : `${result.email} already has the role ${result.newRole || "none"}.`;
  return json({ email, notice }, { headers: NO_STORE });
}

export default function AdminUsers() {
  const { me, q, listing, changes } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const nextPage = listing.nextPageToken
    ? `?${new URLSearchParams({ ...(q ? { q } : {}), page: listing.nextPageToken })}`
    : null;

  return (
    <>
      <h1>Admin users</h1>
      <p>Set who is an admin, and other roles. The role is kept in users/{"{email}"}.stripeRole; every change is recorded below.</p>
      <Form method="get" className="inbox-filters" key={q}>
        <label>
          Search by email
          <input type="search" name="q" defaultValue={q} maxLength={254} />
        </label>
        <button type="submit" className="button">
          Search
        </button>
        {q ? <Link to={location.pathname}>Show all</Link> : null}
      </Form>
      <div aria-live="polite">
        {actionData && "notice" in actionData ? <p className="form-notice" role="status">{actionData.notice}</p> : null}
        {actionData && "fieldErrors" in actionData ? (
          <p className="form-error" role="alert">
            {actionData.email ? `${actionData.email}: ` : null}
            {firstError(actionData.fieldErrors)}
          </p>
        ) : null}
      </div>
      {listing.users.length === 0 ? (
        <p className="empty">{q ? `No users with an email containing “${q}”.` : "No users yet."}</p>
      ) : (
        <UsersTable users={listing.users} me={me} />
      )}
      {nextPage ? (
        <nav aria-label="Pages" className="pager">
          <Link to={nextPage}>{q ? "Search further →" : "More users →"}</Link>
        </nav>
      ) : null}
      <RoleAuditTable changes={changes} />
    </>
  );
}
