import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireUser } from "~/auth/session.server";
import { SignedInAs } from "~/components/signed-in-as";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Tools");

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, role } = await requireUser(request);
  return json({ user, role });
}

export default function ToolsPage() {
  const { user, role } = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <h1>Tools</h1>
      <p>Prompt tools and the functions the assistant can call.</p>
      <SignedInAs user={user} role={role} />
    </div>
  );
}
