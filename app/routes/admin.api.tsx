import {
  json,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { roleName } from "~/components/admin/roles";
import { FormOutcome } from "~/components/form-outcome";
import { LocalTime } from "~/components/time/local-time";
import { apiAccessRows, setApiAccess, type ApiAccessRow } from "~/data/api-access.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { readBody } from "~/http/forms.server";
import { readRoleSwitch } from "~/data/role-switch-input.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";
import { NO_ROLE_KEY } from "~/settings/role-settings";

export const meta: MetaFunction = () => pageTitle("Admin API access");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/api (docs/decisions/100): which roles may use the OpenAI-compatible API, switched per role. */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader and action under /admin checks the role freshly, never from the auth caches (ADR 002).
  await requireAdmin(request);
  const rows = await withDatabase("reading the roles' API access", (db) => apiAccessRows(db));
  return json({ rows }, { headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) throw body.refusal;
  const choice = readRoleSwitch(body.fields);
  if ("error" in choice) return json({ error: choice.error }, { status: 400, headers: NO_STORE });
  const { roleKey, enabled } = choice;
  await withDatabase("switching a role's API access", (db) =>
    setApiAccess(db, { roleKey, enabled, by: user.email ?? user.uid }),
  );
  const notice = enabled
    ? `API access is on for ${accessRoleName(roleKey)}: their keys work from their next call.`
    : `API access is off for ${accessRoleName(roleKey)}: their keys are refused from their next call.`;
  return json({ notice }, { headers: NO_STORE });
}

function accessRoleName(roleKey: string): string {
  return roleKey === NO_ROLE_KEY ? "users without a role" : roleName(roleKey);
}

export default function AdminApiAccess() {
  const { rows } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <section aria-labelledby="api-access-title">
      <h1 id="api-access-title">API access</h1>
      <p className="muted">
        Which roles may use the OpenAI-compatible API with their personal keys. A change applies to every key of the
        role at its next call. A role you have not switched follows the server&apos;s API_ROLES setting. What each key
        used is under Usage.
      </p>
      <FormOutcome
        notice={result && "notice" in result ? result.notice : undefined}
        error={result && "error" in result ? result.error : undefined}
      />
      <div className="table-scroll" tabIndex={0} role="region" aria-label="API access per role">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">API access</th>
              <th scope="col">Set by</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <AccessRow key={row.roleKey} row={row} />
            ))}
          </tbody>
        </table>
      </div>
      <OtherRoleForm />
    </section>
  );
}

function AccessRow({ row }: { row: ApiAccessRow }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("roleKey") === row.roleKey;
  const name = accessRoleName(row.roleKey);
  return (
    <tr>
      <th scope="row">
        {name} <span className="muted">({row.roleKey})</span>
      </th>
      <td>{row.enabled ? "On" : "Off"}</td>
      <td>
        {row.chosen ? (
          <>
            {row.chosen.by}, <LocalTime value={row.chosen.at} />
          </>
        ) : (
          <>API_ROLES (default: {row.byDefault ? "on" : "off"})</>
        )}
      </td>
      <td>
        <Form method="post">
          <input type="hidden" name="roleKey" value={row.roleKey} />
          <input type="hidden" name="enabled" value={row.enabled ? "off" : "on"} />
          <button
            type="submit"
            className="button"
            disabled={busy}
            aria-label={`${row.enabled ? "Turn off" : "Turn on"} API access for ${name}`}
          >
            {row.enabled ? "Turn off" : "Turn on"}
          </button>
        </Form>
      </td>
    </tr>
  );
}

/** A role the table does not list (one set by hand on some users, say): switched by its name. */
function OtherRoleForm() {
  return (
    <Form method="post" className="admin-api-other">
      <h2>Another role</h2>
      <p className="muted">For a role not listed above, as it is written on the users who have it.</p>
      <label>
        Role <input name="roleKey" required pattern="[a-z0-9][a-z0-9_\-]{0,31}" autoComplete="off" />
      </label>{" "}
      <button type="submit" className="button" name="enabled" value="on">
        Turn on
      </button>{" "}
      <button type="submit" className="button" name="enabled" value="off">
        Turn off
      </button>
    </Form>
  );
}
