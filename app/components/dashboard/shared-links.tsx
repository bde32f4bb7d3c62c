import { useFetcher } from "@remix-run/react";
import { LocalTime } from "~/components/time/local-time";

export interface SharedLink {
  id: string;
  path: string;
  title: string;
  /** ISO 8601. */
  createdAt: string;
}

/** The user's open share links, each with Revoke (the link stops working at once). */
export function SharedLinks({ links }: { links: SharedLink[] | null }) {
  if (links === null)
    return <p className="form-error">Your shared links cannot be loaded right now. Please try again shortly.</p>;
  if (links.length === 0) return <p className="empty">No shared links. Use Share in a conversation to make one.</p>;
  return (
    <ul className="shared-links">
      {links.map((link) => (
        <SharedLinkRow key={link.id} link={link} />
      ))}
    </ul>
  );
}

function SharedLinkRow({ link }: { link: SharedLink }) {
  // A fetcher: after it the dashboard's loader runs again, and the revoked link leaves the list.
  const fetcher = useFetcher<{ error?: string }>();
  const failed = fetcher.state === "idle" && fetcher.data?.error;
  return (
    <li>
      <a href={link.path}>{link.title}</a>
      <span className="fine-print">
        {" "}
        · <LocalTime value={link.createdAt} /> · <code>{link.path}</code>
      </span>{" "}
      <fetcher.Form method="post" action={`/api/shares/${link.id}`} className="shared-link-revoke">
        <input type="hidden" name="intent" value="revoke" />
        <button
          type="submit"
          className="button"
          disabled={fetcher.state !== "idle"}
          aria-label={`Revoke the link to ${link.title}`}
        >
          Revoke
        </button>
      </fetcher.Form>
      {failed ? (
        <p className="form-error" role="alert">
          {fetcher.data?.error}
        </p>
      ) : null}
    </li>
  );
}
