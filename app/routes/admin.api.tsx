import {
  json,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { RoleSwitchTable, switchedRoleName, type RoleSwitchFeature } from "~/components/admin/role-switch-table";
import { apiAccessRows, setApiAccess } from "~/data/api-access.server";
import { roleSwitchInput } from "~/data/role-switches.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";

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
  const parsed = roleSwitchInput.safeParse(body.fields);
  if (!parsed.success)
    return json({ error: Object.values(fieldErrors(parsed.error))[0] }, { status: 400, headers: NO_STORE });
  const { roleKey, enabled } = parsed.data;
  await withDatabase("switching a role's API access", (db) =>
    setApiAccess(db, { roleKey, enabled: enabled === "on", by: user.email ?? user.uid }),
  );
  const notice =
    enabled === "on"
      ? `API access is on for ${switchedRoleName(roleKey)}: their keys work from their next call.`
      : `API access is off for ${switchedRoleName(roleKey)}: their keys are refused from their next call.`;
  return json({ notice }, { headers: NO_STORE });
}

const API_ACCESS: RoleSwitchFeature = { label: "API access", inText: "API access", variable: "API_ROLES" };

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
      <RoleSwitchTable feature={API_ACCESS} rows={rows} result={result} />
    </section>
  );
}
