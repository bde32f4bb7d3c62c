import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { getSessionUser } from "~/auth/session.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Account deleted");

/** Where a deleted account lands (api.account.delete.ts); someone signed in has their dashboard instead. */
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSessionUser(request);
  if (session.status === "signed-in") throw redirect("/dashboard");
  return null;
}

export default function AccountDeleted() {
  return (
    <div className="page">
      <h1>Your account has been deleted</h1>
      <p>
        Your account, your conversations and their messages, your usage history and your preferences are gone. Thank you
        for using Nuvara².
      </p>
      <p className="actions">
        <Link to="/" className="button">
          Home page
        </Link>
        <Link to="/login?mode=signup" className="button">
          Create a new account
        </Link>
      </p>
    </div>
  );
}
