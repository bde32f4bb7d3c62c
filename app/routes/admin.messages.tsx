import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { SignedInAs } from "~/components/signed-in-as";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin messages");

// Every loader and action under /admin checks the role freshly (DESIGN.md §1).
export async function loader({ request }: LoaderFunctionArgs) {
  const { user, role } = await requireAdmin(request);
  return json({ user, role }, { headers: { "Cache-Control": "no-store" } });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return json({ error: "No admin actions are available yet." }, { status: 400 });
}

export default function AdminMessages() {
  const { user, role } = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <h1>Admin messages</h1>
      <p>Messages from users reach admins here.</p>
      <SignedInAs user={user} role={role} />
    </div>
  );
}
