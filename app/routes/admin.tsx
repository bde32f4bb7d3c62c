import type { LinksFunction } from "@remix-run/node";
import { NavLink, Outlet } from "@remix-run/react";
import { SignedInAs } from "~/components/signed-in-as";
import { useRootData } from "~/root";
import adminStylesheet from "~/styles/admin.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStylesheet }];

/**
 * The admin area's frame: tabs, who is acting, and the child page. It has no
 * loader, so it holds no data of its own; each child's loader and action
 * check the role freshly.
 */
export default function AdminLayout() {
  const root = useRootData();
  return (
    <div className="page admin">
      <nav aria-label="Admin sections" className="admin-tabs">
        <NavLink to="/admin/messages">Messages</NavLink>
        <NavLink to="/admin/users">Users</NavLink>
        <NavLink to="/admin/feedback">Feedback</NavLink>
        <NavLink to="/admin/usage">Usage</NavLink>
        <NavLink to="/admin/api">API</NavLink>
        <NavLink to="/admin/memory">Memory</NavLink>
      </nav>
      <Outlet />
      {root?.user ? <SignedInAs user={root.user} role={root.role} /> : null}
    </div>
  );
}
