import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireUser } from "~/auth/session.server";
import { memoryAction, memoryPage } from "~/chat/memory-page.server";
import { MemorySettings } from "~/components/memory/memory-settings";
import { pageTitle } from "~/meta";
import { roleKey } from "~/settings/role-settings";
import dashboardStylesheet from "~/styles/dashboard.css";

/** /dashboard/memory: what the assistant remembers about the user, and the switch for it (docs/decisions/103). */
export const meta: MetaFunction = () => pageTitle("Memory");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: dashboardStylesheet }];

export async function loader({ request }: LoaderFunctionArgs) {
  const who = await requireUser(request);
  return json(await memoryPage(who.user.uid, roleKey(who)), { headers: { "Cache-Control": "no-store" } });
}

export async function action({ request }: ActionFunctionArgs) {
  const who = await requireUser(request);
  return memoryAction(request, who.user.uid, roleKey(who));
}

export default function MemoryRoute() {
  const page = useLoaderData<typeof loader>();
  return (
    <div className="page dashboard memory-page">
      <p className="breadcrumb">
        <Link to="/dashboard">Dashboard</Link>
      </p>
      <h1>Memory</h1>
      <MemorySettings page={page} />
    </div>
  );
}
