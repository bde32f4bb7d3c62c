import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Outlet, useLoaderData, useLocation, useParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { loadAssistant, updateInstructions } from "~/chat/assistant-pages.server";
import { CustomInstructions } from "~/components/chat/instructions-dialog";
import { ConversationSidebar } from "~/components/chat/sidebar";
import { AppErrorBoundary } from "~/components/error-boundary";
import { SignedInAs } from "~/components/signed-in-as";
import { pageTitle } from "~/meta";
import chatStyles from "~/styles/chat.css";

export const meta: MetaFunction = () => pageTitle("Assistant");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: chatStyles }];

export async function loader({ request }: LoaderFunctionArgs) {
  return json(await loadAssistant(request), { headers: { "Cache-Control": "private, no-store" } });
}

export function action({ request }: ActionFunctionArgs) {
  return updateInstructions(request);
}

export default function AssistantLayout() {
  const data = useLoaderData<typeof loader>();
  const { conversationId } = useParams();
  const location = useLocation();
  const [drawerOpen, setDrawerOpen] = useState(false);
  useEffect(() => setDrawerOpen(false), [location.pathname]);

  return (
    <div className="assistant">
      <button
        type="button"
        className="button drawer-toggle"
        aria-expanded={drawerOpen}
        aria-controls="conversation-list"
        onClick={() => setDrawerOpen((open) => !open)}
      >
        Conversations
      </button>
      <ConversationSidebar
        conversations={data.conversations}
        search={data.search}
        activeId={conversationId ?? null}
        open={drawerOpen}
        footer={
          <>
            <CustomInstructions text={data.customInstructions} />
            <SignedInAs user={data.user} role={data.role} />
          </>
        }
      />
      <div className="assistant-main">
        <Outlet />
      </div>
    </div>
  );
}

export const ErrorBoundary = AppErrorBoundary;
