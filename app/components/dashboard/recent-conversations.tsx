import { Link } from "@remix-run/react";
import { LocalTime } from "~/components/time/local-time";

export interface RecentConversation {
  id: string;
  title: string | null;
  /** ISO 8601. */
  updatedAt: string;
}

/** The last conversations, newest activity first, and a way to start another. */
export function RecentConversations({ conversations }: { conversations: RecentConversation[] | null }) {
  return (
    <>
      {conversations === null ? (
        <p className="form-error">Your conversations cannot be loaded right now. Please try again shortly.</p>
      ) : conversations.length === 0 ? (
        <p className="empty">No conversations yet. Start one and it will show here.</p>
      ) : (
        <ul className="recent-conversations">
          {conversations.map((conversation) => (
            <li key={conversation.id}>
              <Link to={`/nuvara/${conversation.id}`}>{conversation.title ?? "New chat"}</Link>
              <span className="fine-print">
                {" "}
                · <LocalTime value={conversation.updatedAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className="actions">
        <Link to="/nuvara" className="button primary">
          New chat
        </Link>
        <Link to="/tools" className="button">
          Start from a tool
        </Link>
      </p>
    </>
  );
}
