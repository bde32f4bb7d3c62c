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
import { ADMIN_KEY, lookupRole, NO_ROLE_KEY, OTHER_ROLES_KEY } from "~/settings/role-settings";
import { AccountAuditTable } from "~/components/admin/account-audit-table";
import { firstError } from "~/components/admin/labels";
import { RoleAuditTable } from "~/components/admin/role-audit-table";
import { roleName } from "~/components/admin/roles";
import { UsersTable } from "~/components/admin/users-table";
import { getConfig } from "~/config.server";
import { recentAccountActions, recentRoleChanges } from "~/data/audit.server";
import { AccountDeletionError } from "~/data/account.server";
import {
  AccountActionError,
  changeAccount,
  changeRole,
  deleteAccountAsAdmin,
  LastAdminError,
  listUsersForAdmin,
  monthStart,
  usageThisMonth,
  type RoleChangeResult,
} from "~/data/admin-users.server";
import {
  accountActionSchema,
  roleChangeSchema,
  usersQuerySchema as querySchema,
} from "~/data/admin-users-input.server";
import { readRole, UnkeyableEmailError } from "~/auth/roles.server";
import { withDatabase } from "~/http/with-database.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin users");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

function unavailable(context: string, error: unknown): never {
  logBackendFault("admin", context, error);
  throw json(
    { error: "The user directory is unavailable right now. Please try again shortly." },
    { status: 503, headers: NO_STORE },
  );
}

// Every loader and action under /admin checks the role freshly, never from the auth caches (ADR 002).
export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireAdmin(request);
  const parsed = querySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw json({ error: firstError(fieldErrors(parsed.error)) }, { status: 400, headers: NO_STORE });
  const { q, page } = parsed.data;
  // Usage is shown when PostgreSQL answers; the list does without it.
  const usage = (uids: string[]) =>
    withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      getDb().then((db) => usageThisMonth(db, uids)),
    ).catch((error: unknown) => {
      logBackendFault("postgres", "reading users' usage", error);
      return null;
    });
  const [listing, changes, accountActions] = await Promise.all([
    listUsersForAdmin({ q, pageToken: page, usage }).catch((error) => unavailable("listing users", error)),
    withDatabase("reading role changes", (db) => recentRoleChanges(db)),
    withDatabase("reading account actions", (db) => recentAccountActions(db)),
  ]);
  const limits = getConfig().dailyLimits;
  const allowances = {
    none: lookupRole(limits, NO_ROLE_KEY) ?? null,
    premium: lookupRole(limits, "premium") ?? null,
    admin: lookupRole(limits, ADMIN_KEY) ?? null,
    other: lookupRole(limits, OTHER_ROLES_KEY) ?? null,
  };
  return json(
    { me: user.email, q: q ?? "", listing, changes, accountActions, allowances, monthStart: monthStart() },
    { headers: NO_STORE },
  );
}

const ACCOUNT_NOTICES = {
  disable: (email: string) => `${email} is disabled: they are logged out everywhere and cannot log in.`,
  enable: (email: string) => `${email} is enabled: they can log in again.`,
  "sign-out-everywhere": (email: string) => `${email} is logged out on every device.`,
  delete: (email: string) => `${email || "The account"} is deleted, with everything the product kept of theirs.`,
};

async function accountAction(fields: Record<string, unknown>, actor: { uid: string; email: string }) {
  const parsed = accountActionSchema.safeParse(fields);
  if (!parsed.success)
    return json({ email: null, fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  const { intent, uid, confirm } = parsed.data;
  // Deleting cannot be undone: the first post is answered with the question, the second acts.
  if (intent === "delete" && confirm !== "yes")
    return json({ email: null, confirmDelete: { uid } }, { headers: NO_STORE });
  try {
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    const result =
      intent === "delete" ? await deleteAccountAsAdmin(db, actor, uid) : await changeAccount(db, actor, uid, intent);
    const notice = result.changed
      ? ACCOUNT_NOTICES[intent](result.email)
      : `${result.email} already is ${intent === "disable" ? "disabled" : "enabled"}.`;
    return json({ email: result.email, notice }, { headers: NO_STORE });
  } catch (error) {
    if (error instanceof AccountActionError) {
      return json({ email: null, fieldErrors: { form: error.message } }, { status: error.status, headers: NO_STORE });
    }
    if (error instanceof AccountDeletionError) {
      logBackendFault("admin", "deleting an account", error);
      const message = error.dataDeleted
        ? "Their data is deleted, but the account itself could not be removed right now. Try again shortly."
        : "The account could not be deleted right now; nothing was deleted. Try again shortly.";
      return json({ email: null, fieldErrors: { form: message } }, { status: 503, headers: NO_STORE });
    }
    unavailable("changing an account", error);
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const body = await readBody(request, BODY_LIMITS.small);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;
  const actor = { uid: user.uid, email: user.email ?? "" };
  if (body.fields.intent !== undefined && body.fields.intent !== "role") return accountAction(body.fields, actor);
  const parsed = roleChangeSchema.safeParse(body.fields);
  if (!parsed.success) {
    const email = typeof body.fields.email === "string" ? body.fields.email : null;
    return json({ email, fieldErrors: fieldErrors(parsed.error) }, { status: 400, headers: NO_STORE });
  }
  const { email, role, confirmed } = parsed.data;
  let result: RoleChangeResult;
  try {
    // Granting admin is asked once more (an admin can do everything this page does).
    if (
      role === "admin" &&
      !confirmed &&
      (await withDeadline("firestore", getConfig().backendTimeoutMs, readRole(email))) !== "admin"
    ) {
      const customRole = typeof body.fields.customRole === "string" ? body.fields.customRole : "";
      return json(
        {
          email,
          confirmAdmin: { role: typeof body.fields.role === "string" ? body.fields.role : "admin", customRole },
        },
        { headers: NO_STORE },
      );
    }
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    result = await changeRole(db, actor, email, role);
  } catch (error) {
    if (error instanceof LastAdminError) {
      return json({ email, fieldErrors: { role: error.message } }, { status: 409, headers: NO_STORE });
    }
    if (error instanceof UnkeyableEmailError) {
      return json({ email, fieldErrors: { role: error.message } }, { status: 400, headers: NO_STORE });
    }
    unavailable("changing a role", error);
  }
  // An admin who gave up their own admin role can no longer see this page.
  if (result.changed && result.email === actor.email.toLowerCase() && result.newRole !== "admin") {
    return redirect("/", { headers: NO_STORE });
  }
  const notice = result.changed
    ? `${result.email}: role changed from ${roleName(result.oldRole)} to ${roleName(result.newRole)}.`
    : result.newRole === ""
      ? `${result.email} already has no role.`
      : `${result.email} already has the role ${roleName(result.newRole)}.`;
  return json({ email, notice }, { headers: NO_STORE });
}

export default function AdminUsers() {
  const { me, q, listing, changes, accountActions, allowances, monthStart } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const nextPage = listing.nextPageToken
    ? `?${new URLSearchParams({ ...(q ? { q } : {}), page: listing.nextPageToken })}`
    : null;

  return (
    <>
      <h1>Admin users</h1>
      <p>
        Everyone with an account, their role and what they used this month. A role decides what someone may do:{" "}
        <strong>Admin</strong> opens the admin area, <strong>Premium</strong> and other roles are plans with their own
        daily allowance, and <strong>No role</strong> is the standard plan. Use Edit to change a role, disable or delete
        an account or sign someone out everywhere; every change is recorded at the bottom of this page.
      </p>
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
        {actionData && "notice" in actionData ? (
          <p className="form-notice" role="status">
            {actionData.notice}
          </p>
        ) : null}
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
        <>
          <p className="fine-print">
            “This month” counts from {monthStart} (UTC): the messages their daily allowance counted, and the tokens the
            replies used.{listing.usageUnavailable ? " Usage cannot be read right now." : ""}
          </p>
          <UsersTable
            users={listing.users}
            me={me}
            allowances={allowances}
            usageUnavailable={listing.usageUnavailable}
          />
        </>
      )}
      {nextPage ? (
        <nav aria-label="Pages" className="pager">
          <Link to={nextPage}>{q ? "Search further →" : "More users →"}</Link>
        </nav>
      ) : null}
      <RoleAuditTable changes={changes} />
      <AccountAuditTable actions={accountActions} />
    </>
  );
}
