import { json, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import {
  Links,
  Meta,
  Outlet,
  LiveReload,
  Scripts,
  ScrollRestoration,
  useMatches,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { readSessionCookie } from "~/auth/cookie.server";
import { getSessionUser, sessionHeaders } from "~/auth/session.server";
import { AuthPendingProvider } from "~/components/auth-pending";
import { AppErrorBoundary, errorTitle } from "~/components/error-boundary";
import { SiteNav } from "~/components/nav";
import { ServiceWorkerRegistration } from "~/components/service-worker";
import { planOfRole } from "~/billing/plans.server";
import { useNonce } from "~/components/nonce";
import { newMessageCountForNav } from "~/data/inbox.server";
import { prefetchTheme, themeOfSession } from "~/data/theme.server";
import { pageTitle } from "~/meta";
import stylesheet from "~/styles/app.css";
import inboxStylesheet from "~/styles/inbox.css";

export const meta: MetaFunction = ({ error }) => pageTitle(error ? errorTitle(error) : undefined);

export const links: LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  // Installable (docs/decisions/098): the manifest, and the icon a phone's home screen shows.
  { rel: "manifest", href: "/manifest.webmanifest" },
  { rel: "apple-touch-icon", href: "/icons/apple-touch-icon.png" },
  { rel: "stylesheet", href: stylesheet },
  { rel: "stylesheet", href: inboxStylesheet },
];

/** Verifies the session cookie and resolves the role: the nav is right in the first byte. */
export async function loader({ request }: LoaderFunctionArgs) {
  // The Admin link's badge is asked for alongside the session check (it is
  // cached briefly), so an admin's page costs one round trip, not two.
  const cookie = readSessionCookie(request);
  const badge = cookie ? newMessageCountForNav() : null;
  // The user's theme is read beside the session check, so the first byte already has it (no flash).
  const themeRead = cookie ? prefetchTheme(cookie) : null;
  const state = await getSessionUser(request);
  const newMessages = state.status === "signed-in" && state.isAdmin ? await badge : null;
  const theme = state.status === "signed-in" ? await themeOfSession(state.user.uid, themeRead) : "system";
  const data =
    state.status === "signed-in"
      ? {
          user: state.user,
          role: state.role,
          plan: planOfRole(state.role),
          isAdmin: state.isAdmin,
          degraded: state.degraded,
          newMessages,
          theme,
        }
      : { user: null, role: "", plan: null, isAdmin: false, degraded: state.degraded, newMessages, theme };
  return json(data, { headers: sessionHeaders(state) });
}

export type RootData = ReturnType<typeof useRootData>;

export function useRootData() {
  return useRouteLoaderData<typeof loader>("root");
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRootData();
  const nonce = useNonce();
  // A page may ask for a skip link as its first Tab stop (the assistant's leads to the message box).
  const skipLink = useMatches()
    .map((match) => (match.handle as { skipLink?: { href: string; label: string } } | undefined)?.skipLink)
    .findLast(Boolean);
  return (
    // "system" renders no attribute: the stylesheet follows prefers-color-scheme.
    <html lang="en" data-theme={data?.theme && data.theme !== "system" ? data.theme : undefined}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {/* The browser's and an installed app's title bar, by theme (app/styles/app.css --bg). */}
        <meta name="theme-color" content="#ffffff" media="(prefers-color-scheme: light)" />
        <meta name="theme-color" content="#111318" media="(prefers-color-scheme: dark)" />
        <Meta />
        <Links />
      </head>
      <body>
        {skipLink ? (
          <a className="skip-link" href={skipLink.href}>
            {skipLink.label}
          </a>
        ) : null}
        <AuthPendingProvider>
          <SiteNav
            signedIn={Boolean(data?.user)}
            isAdmin={Boolean(data?.isAdmin)}
            newMessages={data?.newMessages ?? null}
            plan={data?.plan ?? null}
          />
          {data?.degraded ? (
            <p className="banner" role="status">
              Some services are not answering right now; a few features may be unavailable.
            </p>
          ) : null}
          <main id="main">{children}</main>
        </AuthPendingProvider>
        <ServiceWorkerRegistration />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        {/* npm run dev only: reloads the page after a rebuild (renders nothing in a production build). */}
        <LiveReload nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export const ErrorBoundary = AppErrorBoundary;
