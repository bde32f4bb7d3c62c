import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { requireAdmin } from "~/auth/session.server";

/** /admin itself: the inbox is the admin area's first page. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return redirect("/admin/messages");
}

// Never rendered (the loader always redirects or throws), but a component
// makes this a page: a refusal shows the error page, not bare JSON.
export default function AdminIndex() {
  return null;
}
