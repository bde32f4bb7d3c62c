import { Form } from "@remix-run/react";

export interface InboxFilterValues {
  status: string;
  kind?: string;
  q?: string;
}

/** Search and filters of the inbox: a GET form, so every view is a link. */
export function InboxFilters({ query }: { query: InboxFilterValues }) {
  return (
    // Keyed by the query: after a navigation the fields show what is applied.
    <Form method="get" className="inbox-filters" key={`${query.status}|${query.kind ?? ""}|${query.q ?? ""}`}>
      <label>
        Search messages
        <input
          type="search"
          name="q"
          defaultValue={query.q ?? ""}
          maxLength={200}
          placeholder="Sender or words in the text"
          size={30}
        />
      </label>
      <label>
        Status
        <select name="status" defaultValue={query.status}>
          <option value="inbox">Inbox (new and read)</option>
          <option value="new">New</option>
          <option value="read">Read</option>
          <option value="archived">Archived</option>
          <option value="all">All</option>
        </select>
      </label>
      <label>
        Kind
        <select name="kind" defaultValue={query.kind ?? ""}>
          <option value="">All kinds</option>
          <option value="contact">Contact</option>
          <option value="report">Report</option>
        </select>
      </label>
      <button type="submit" className="button">
        Filter
      </button>
    </Form>
  );
}
