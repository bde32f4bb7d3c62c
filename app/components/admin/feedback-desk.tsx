import { Form, Link } from "@remix-run/react";
import { ThumbIcon } from "~/components/chat/thumb-icon";
import { LocalTime } from "~/components/time/local-time";

/** The admin Feedback page's filters and its table (the loader: app/data/feedback-desk.server.ts). */

export interface FeedbackQueryValues {
  rating: "all" | "up" | "down";
  model: string;
}

export type RaterName = { kind: "email"; email: string } | { kind: "deleted" } | { kind: "unknown" };

export interface FeedbackDeskRow {
  messageId: string;
  rating: 1 | -1;
  uid: string;
  model: string | null;
  excerpt: string;
  updatedAt: string;
  reportId: string | null;
  rater: RaterName;
}

/** Rating and model, as a GET form: every view is a link, and it works before the page's scripts load. */
export function FeedbackFilters({ query, models }: { query: FeedbackQueryValues; models: string[] }) {
  // A model in the address that no rated reply has (any more) stays chosen, so the empty result explains itself.
  const choices = query.model && !models.includes(query.model) ? [...models, query.model] : models;
  const filtered = query.rating !== "all" || query.model !== "";
  return (
    // Keyed by the query: after a navigation the fields show what is applied.
    <Form method="get" className="inbox-filters feedback-filters" key={`${query.rating}|${query.model}`}>
      <label>
        Rating
        <select name="rating" defaultValue={query.rating}>
          <option value="all">All ratings</option>
          <option value="up">Good (👍)</option>
          <option value="down">Bad (👎)</option>
        </select>
      </label>
      <label>
        Model
        <select name="model" defaultValue={query.model}>
          <option value="">All models</option>
          {choices.map((model) => (
            <option key={model} value={model}>
              {model}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button">
        Filter
      </button>
      {filtered ? <Link to="/admin/feedback">Clear filters</Link> : null}
    </Form>
  );
}

function Rater({ rater, uid }: { rater: RaterName; uid: string }) {
  if (rater.kind === "email") return <span className="rater-email">{rater.email}</span>;
  if (rater.kind === "deleted") return <span className="muted">Deleted account</span>;
  // The identity service did not answer: the id still tells admins apart who rated what.
  return (
    <span className="muted" title="The account's email could not be read just now">
      Account {uid}
    </span>
  );
}

function ConversationLink({ row }: { row: FeedbackDeskRow }) {
  if (!row.reportId) return <span className="muted">Not reported</span>;
  // The reported conversation's page records each opening in the admin audit (docs/decisions/063).
  return <Link to={`/admin/messages/${row.reportId}/conversation`}>Open conversation</Link>;
}

export function FeedbackTable({ rows }: { rows: FeedbackDeskRow[] }) {
  return (
    <table className="admin-table feedback-table">
      <thead>
        <tr>
          <th scope="col">Rating</th>
          <th scope="col">Reply</th>
          <th scope="col">Model</th>
          <th scope="col">Rated by</th>
          <th scope="col">When</th>
          <th scope="col">Conversation</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.messageId}>
            <td className="rating">
              <ThumbIcon down={row.rating === -1} /> {row.rating === 1 ? "Good" : "Bad"}
            </td>
            <td className="excerpt">{row.excerpt}</td>
            <td className="model">{row.model ?? "—"}</td>
            <td className="rater">
              <Rater rater={row.rater} uid={row.uid} />
            </td>
            <td className="when">
              <LocalTime value={row.updatedAt} />
            </td>
            <td className="conversation">
              <ConversationLink row={row} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
