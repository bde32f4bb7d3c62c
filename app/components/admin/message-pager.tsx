import { Link, useNavigate } from "@remix-run/react";
import { useEffect } from "react";

/**
 * Back to the list, and the previous (newer) and next (older) message of the
 * list the admin came from, with its filters. j and k do the same, as in
 * mail clients, except while typing (the reply box) or with a modifier.
 */
export function MessagePager({ back, previous, next }: { back: string; previous?: string; next?: string }) {
  const navigate = useNavigate();
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']")) return;
      const to = event.key === "j" ? next : event.key === "k" ? previous : undefined;
      if (!to) return;
      event.preventDefault();
      navigate(to);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [navigate, next, previous]);

  return (
    <nav aria-label="Messages" className="message-pager">
      <Link to={back}>← Back to messages</Link>
      <span className="pager-steps">
        {previous ? (
          <Link to={previous} rel="prev" aria-keyshortcuts="k">
            ‹ Previous
          </Link>
        ) : (
          <span className="muted">‹ Previous</span>
        )}
        {next ? (
          <Link to={next} rel="next" aria-keyshortcuts="j">
            Next ›
          </Link>
        ) : (
          <span className="muted">Next ›</span>
        )}
        <span className="fine-print keys-hint" aria-hidden="true">
          <kbd>k</kbd> / <kbd>j</kbd>
        </span>
      </span>
    </nav>
  );
}
