import {
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useTabPresence } from "~/components/notify/use-tab-presence";
import { Outlet, useLoaderData, useLocation, useNavigate, useParams, useRouteLoaderData } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { changeChats, chatLayoutPage } from "~/chat/chat-pages.server";
import { SettingsMenu } from "~/components/account/settings-menu";
import { VerifyEmailBanner } from "~/components/account/verify-email-banner";
import { MESSAGE_BOX_ID } from "~/components/chat/composer";
import { InstructionsDialog } from "~/components/chat/instructions-dialog";
import { ShortcutsDialog, useChatShortcuts } from "~/components/chat/shortcuts";
import { ConversationSidebar } from "~/components/chat/sidebar";
import { SidebarProvider, useSidebarState } from "~/components/chat/sidebar-state";
import type { LiveTitles } from "~/components/chat/live-titles";
import { useLiveConversations } from "~/components/chat/use-live-conversations";
import { AppErrorBoundary } from "~/components/error-boundary";
import { NavItems } from "~/components/nav";
import { SignedInAs } from "~/components/signed-in-as";
import { pageTitle } from "~/meta";
import type { loader as rootLoader } from "~/root";
import chatStyles from "~/styles/chat.css";

export const meta: MetaFunction = () => pageTitle("Assistant");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: chatStyles }];

/** The root renders this as the page's first Tab stop (app/root.tsx). */
export const handle = { skipLink: { href: `#${MESSAGE_BOX_ID}`, label: "Skip to message box" } };

export function loader({ request }: LoaderFunctionArgs) {
  return chatLayoutPage(request);
}

export function action({ request }: ActionFunctionArgs) {
  return changeChats(request);
}

export default function AssistantLayout() {
  const data = useLoaderData<typeof loader>();
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const { conversationId } = useParams();
  const location = useLocation();
  const sidebar = useSidebarState();
  const live = useLiveConversations(data.conversations, {
    filtered: data.search !== "" || data.view === "archived",
    activeId: conversationId ?? null,
  });
  const liveTitles: LiveTitles = useMemo(
    () => new Map(live.conversations.flatMap((row) => (row.title ? [[row.id, row.title] as const] : []))),
    [live.conversations],
  );
  const { closeDrawer } = sidebar;
  // Choosing a conversation (or New chat) in the drawer closes it; the chat then takes the focus.
  useEffect(() => closeDrawer({ returnFocus: false }), [location.pathname, closeDrawer]);
  const closeWithFocus = useCallback(() => closeDrawer(), [closeDrawer]);
  const [helpOpen, setHelpOpen] = useState(false);
  const openHelp = useCallback(() => setHelpOpen(true), []);
  const [instructionsOpen, setInstructionsOpen] = useState(false);
  const openInstructions = useCallback(() => setInstructionsOpen(true), []);
  const navigate = useNavigate();
  useChatShortcuts(openHelp);
  useTabPresence(data.notices);

  const classes = ["assistant", sidebar.collapsed && "sidebar-collapsed", sidebar.drawerOpen && "drawer-open"].filter(
    Boolean,
  );
  return (
    <SidebarProvider value={sidebar}>
      <div className={classes.join(" ")}>
        <ConversationSidebar
          conversations={live.conversations}
          folders={data.folders}
          projects={data.projects}
          view={data.view}
          search={data.search}
          activeId={live.activeId}
          open={sidebar.drawerOpen}
          onClose={closeWithFocus}
          footer={
            <>
              <SettingsMenu
                theme={root?.theme ?? "system"}
                entries={[
                  {
                    label: `Custom instructions: ${data.customInstructions ? "on" : "off"}`,
                    onSelect: openInstructions,
                  },
                  { label: "Memory", onSelect: () => navigate("/dashboard/memory") },
                  { label: "Keyboard shortcuts", onSelect: openHelp },
                ]}
              />
              <SignedInAs user={data.user} role={data.role} />
              {/* Phones only (chat.css): the site's links live here, so the chat has one slim bar. */}
              <nav aria-label="Site" className="drawer-site-nav">
                <ul>
                  <NavItems signedIn isAdmin={Boolean(root?.isAdmin)} newMessages={root?.newMessages ?? null} />
                </ul>
              </nav>
            </>
          }
        />
        {sidebar.drawerOpen ? (
          <div className="drawer-backdrop" data-outside-trap aria-hidden="true" onClick={closeWithFocus} />
        ) : null}
        <div className="assistant-main">
          {data.verifyEmail ? <VerifyEmailBanner {...data.verifyEmail} /> : null}
          <Outlet context={liveTitles} />
        </div>
      </div>
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
      <InstructionsDialog
        text={data.customInstructions}
        open={instructionsOpen}
        onClose={() => setInstructionsOpen(false)}
      />
    </SidebarProvider>
  );
}

export const ErrorBoundary = AppErrorBoundary;
