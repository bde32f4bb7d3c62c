import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { ThumbIcon } from "~/components/chat/thumb-icon";
import { recentFeedback } from "~/data/feedback.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";
import { LocalTime } from "~/components/time/local-time";

export const meta: MetaFunction = () => pageTitle("Admin feedback");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/feedback: the latest 👍/👎 users gave replies, beside the reports under Messages. */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader under /admin checks the role freshly, never from the auth caches (ADR 002).
  await requireAdmin(request);
  const rows = await withDatabase("reading reply feedback", (db) => recentFeedback(db));
  return json({ rows }, { headers: NO_STORE });
}

export default function AdminFeedbackPage() {
  const { rows } = useLoaderData<typeof loader>();
  return (
    <section aria-labelledby="feedback-title">
      <h1 id="feedback-title">Reply feedback</h1>
      <p className="muted">The latest 100 ratings users gave the assistant's replies. Reports are under Messages.</p>
      {rows.length === 0 ? (
        <p>No feedback yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="admin-table feedback-table">
            <thead>
              <tr>
                <th scope="col">Rating</th>
                <th scope="col">Reply</th>
                <th scope="col">Model</th>
                <th scope="col">User id</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.messageId}>
                  <td className="rating">
                    <ThumbIcon down={row.rating === -1} /> {row.rating === 1 ? "Good" : "Bad"}
                  </td>
                  <td className="excerpt">{row.excerpt}</td>
                  <td>{row.model ?? "—"}</td>
                  <td>{row.uid}</td>
                  <td>
                    <LocalTime value={row.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
