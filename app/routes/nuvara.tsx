import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireUser } from "~/auth/session.server";
import { SignedInAs } from "~/components/signed-in-as";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Assistant");

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, role } = await requireUser(request);
  return json({ user, role });
}

export default function AssistantPage() {
  const { user, role } = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <h1>Assistant</h1>
      <p>Chat with your assistant.</p>
      <SignedInAs user={user} role={role} />
    </div>
  );
}
