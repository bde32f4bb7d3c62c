import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { FeedbackFilters, FeedbackTable } from "~/components/admin/feedback-desk";
import { feedbackDesk } from "~/data/feedback-desk.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Admin feedback");

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

/** /admin/feedback: the latest 👍/👎 users gave replies, beside the reports under Messages. */
export async function loader({ request }: LoaderFunctionArgs) {
  // Every loader under /admin checks the role freshly, never from the auth caches (ADR 002).
  await requireAdmin(request);
  return json(await feedbackDesk(new URL(request.url)), { headers: NO_STORE });
}

export default function AdminFeedbackPage() {
  const { query, problems, models, rows } = useLoaderData<typeof loader>();
  const filtered = query.rating !== "all" || query.model !== "";
  return (
    <section aria-labelledby="feedback-title">
      <h1 id="feedback-title">Reply feedback</h1>
      <p className="muted">
        The latest 100 ratings users gave the assistant's replies. Reports are under Messages; a rated reply's
        conversation can be opened only through its rater's report of it, and each opening is recorded.
      </p>
      <FeedbackFilters query={query} models={models} />
      {problems.map((problem) => (
        <p key={problem} className="form-error" role="alert">
          {problem}
        </p>
      ))}
      {rows.length === 0 ? (
        <p role="status">{filtered ? "No feedback matches these filters." : "No feedback yet."}</p>
      ) : (
        <FeedbackTable rows={rows} />
      )}
    </section>
  );
}
