import { Form, Link } from "@remix-run/react";

/**
 * The second step of a delete: deleting cannot be undone, so the server
 * answers a first "delete" with this question and acts only on "yes".
 */
export function ConfirmDelete({ ids, cancelTo }: { ids: string[]; cancelTo: string }) {
  const what = ids.length === 1 ? "this message" : `these ${ids.length} messages`;
  return (
    <section
      className="confirm-panel"
      role="alertdialog"
      aria-labelledby="confirm-delete-title"
      aria-describedby="confirm-delete-text"
    >
      <h2 id="confirm-delete-title">Delete {what}?</h2>
      <p id="confirm-delete-text">Deleting cannot be undone. Archive instead to keep a copy out of the way.</p>
      <Form method="post" className="actions">
        {ids.map((id) => (
          <input key={id} type="hidden" name="ids" value={id} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" name="intent" value="delete" className="button danger">
          Yes, delete {what}
        </button>
        <Link to={cancelTo} className="button">
          Cancel
        </Link>
      </Form>
    </section>
  );
}
