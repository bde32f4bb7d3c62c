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
import { memoryAccessRows, setMemoryAccess } from "~/data/memory-access.server";
import { roleSwitchInput } from "~/data/role-switches.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin memory");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/memory (docs/decisions/105): which roles have memory across chats, switched per role. */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader and action under /admin checks the role freshly, never from the auth caches (ADR 002).
  await requireAdmin(request);
  const rows = await withDatabase("reading the roles' memory switch", (db) => memoryAccessRows(db));
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
  await withDatabase("switching a role's memory", (db) =>
    setMemoryAccess(db, { roleKey, enabled: enabled === "on", by: user.email ?? user.uid }),
  );
  const notice =
    enabled === "on"
      ? `Memory is on for ${switchedRoleName(roleKey)}: the assistant reads and saves their memories from their next message.`
      : `Memory is off for ${switchedRoleName(roleKey)}: from their next message the assistant neither reads nor saves memories. Their memories are kept.`;
  return json({ notice }, { headers: NO_STORE });
}

const MEMORY: RoleSwitchFeature = { label: "Memory", inText: "memory", variable: "MEMORY_ROLES" };

export default function AdminMemory() {
  const { rows } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <section aria-labelledby="memory-access-title">
      <h1 id="memory-access-title">Memory</h1>
      <p className="muted">
        Which roles have memory across chats: the assistant saving facts about a user and reading them in later chats. A
        change applies to every user of the role at their next message. Switching memory off keeps the users&apos;
        memories: they can still read and delete them on their memory page. A role you have not switched follows the
        server&apos;s MEMORY_ROLES setting.
      </p>
      <RoleSwitchTable feature={MEMORY} rows={rows} result={result} />
    </section>
  );
}
