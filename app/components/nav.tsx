import { Form, Link, NavLink, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useAuthPending } from "./auth-pending";
import { markSignedOut } from "./signed-out-notice";

export interface NavProps {
  signedIn: boolean;
  isAdmin: boolean;
  /** New messages in the admin inbox (admins only; null when unknown). */
  newMessages?: number | null;
  /** The plan the user's role comes from (PLANS), shown beside the brand; not a link. */
  plan?: string | null;
}

/** The site navigation (its links and their names: tests/e2e/nav.spec.ts), rendered on the server from the root loader. */
export function SiteNav({ signedIn, isAdmin, newMessages, plan }: NavProps) {
  const pending = useAuthPending();
  const [open, setOpen] = useState(false);
  const location = useLocation();
  // Close the narrow-screen menu after a navigation.
  useEffect(() => setOpen(false), [location.pathname]);

  return (
    <header className="site-header">
      <nav aria-label="Main" className="site-nav">
        <Link to="/" className="brand" prefetch="none">
          Nuvara<sup>2</sup>
        </Link>
        {signedIn && plan && !pending ? (
          <span className="nav-plan">
            <span className="visually-hidden">Your plan: </span>
            {plan}
          </span>
        ) : null}
        <button
          type="button"
          className="menu-button"
          aria-expanded={open}
          aria-controls="nav-links"
          onClick={() => setOpen((o) => !o)}
        >
          Menu
        </button>
        {pending ? (
          <p className="nav-pending" role="status">
            {pending === "signing-in" ? "Logging in…" : "Logging out…"}
          </p>
        ) : (
          <ul id="nav-links" className={open ? "nav-links open" : "nav-links"}>
            <NavItems signedIn={signedIn} isAdmin={isAdmin} newMessages={newMessages} />
          </ul>
        )}
      </nav>
    </header>
  );
}

/**
 * The site's links, always in this order and with these names (tests/e2e/nav.spec.ts): in the header,
 * and on a phone's assistant page in the conversation drawer, where they replace
 * the header so the chat has one slim bar (docs/features.md, "The assistant").
 */
export function NavItems({ signedIn, isAdmin, newMessages }: NavProps) {
  return (
    <>
      <li>
        <NavLink to="/nuvara">Assistant</NavLink>
      </li>
      <li>
        <NavLink to="/dashboard">Dashboard</NavLink>
      </li>
      <li>
        <NavLink to="/tools">Tools</NavLink>
      </li>
      {isAdmin ? (
        <li>
          <NavLink to="/admin/messages">
            Admin
            {newMessages ? (
              // The link's name stays "Admin…" and says what the number counts.
              <>
                <span className="badge" aria-hidden="true">
                  {newMessages > 99 ? "99+" : newMessages}
                </span>
                <span className="visually-hidden">{` (${newMessages} new ${
                  newMessages === 1 ? "message" : "messages"
                })`}</span>
              </>
            ) : null}
          </NavLink>
        </li>
      ) : null}
      <li>
        {signedIn ? (
          <Form method="post" action="/api/auth/logout" className="logout-form" onSubmit={markSignedOut}>
            <button type="submit" className="link-button">
              Logout
            </button>
          </Form>
        ) : (
          // No prefetch: /login's code (the Firebase SDK) loads only when opened.
          <NavLink to="/login" prefetch="none">
            Login
          </NavLink>
        )}
      </li>
    </>
  );
}
