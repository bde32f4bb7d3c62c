import { Link, useFetcher } from "@remix-run/react";
import { useState } from "react";
import type { PromptToolSummary } from "~/data/prompt-tools/catalogue";

export interface AdminActionResult {
  ok?: boolean;
  notice?: string;
  error?: string;
  /** The id of a tool whose deletion (a built-in one's reset) waits for a confirmation. */
  confirmDelete?: string;
}

/** One prompt tool in the catalogue; admins also get its controls. */
export function PromptToolCard({
  tool,
  isAdmin,
  confirmDelete,
}: {
  tool: PromptToolSummary;
  isAdmin: boolean;
  /** Set when a form post without JavaScript asked to confirm this tool's deletion. */
  confirmDelete?: boolean;
}) {
  const headingId = `tool-${tool.id}`;
  return (
    <li className={tool.enabled ? "tool-card" : "tool-card disabled"}>
      <article aria-labelledby={headingId}>
        <p className="tool-category">
          {tool.category}
          {tool.builtIn ? null : <span className="tool-badge">Added by admins</span>}
          {isAdmin && tool.edited ? <span className="tool-badge">Edited</span> : null}
          {tool.enabled ? null : <span className="tool-badge off">Disabled</span>}
        </p>
        <h3 id={headingId}>
          <Link to={`/tools/${tool.id}`}>{tool.name}</Link>
        </h3>
        <p>{tool.description}</p>
        {isAdmin ? <AdminControls tool={tool} confirmDelete={confirmDelete} /> : null}
      </article>
    </li>
  );
}

function AdminControls({ tool, confirmDelete }: { tool: PromptToolSummary; confirmDelete?: boolean }) {
  const fetcher = useFetcher<AdminActionResult>();
  const busy = fetcher.state !== "idle";
  // Cancel hides the question it answered; a later Delete asks again.
  const [dismissed, setDismissed] = useState<unknown>(null);
  const asked =
    fetcher.data?.confirmDelete === tool.id ? dismissed !== fetcher.data : Boolean(confirmDelete) && dismissed === null;
  const confirming = asked && fetcher.formData?.get("confirm") !== "yes";
  const name = <span className="visually-hidden"> {tool.name}</span>;
  // A built-in tool is reset to its default (only once edited), never deleted.
  const removal = tool.builtIn
    ? {
        intent: "reset",
        label: "Reset to default",
        confirmLabel: "Yes, reset",
        question: `Reset “${tool.name}” to its built-in default? Your changes to its name, description, instructions and inputs are lost.`,
      }
    : {
        intent: "delete",
        label: "Delete",
        confirmLabel: "Yes, delete",
        question: `Delete “${tool.name}” for good? Everyone loses it; conversations already started with it are kept.`,
      };
  const canRemove = !tool.builtIn || Boolean(tool.edited);
  return (
    <div className="tool-admin">
      <Link to={`/tools/${tool.id}/edit`} className="button small">
        Edit{name}
      </Link>
      <fetcher.Form method="post" action="/tools">
        <input type="hidden" name="id" value={tool.id} />
        <button
          type="submit"
          name="intent"
          value={tool.enabled ? "disable" : "enable"}
          className="button small"
          disabled={busy}
        >
          {tool.enabled ? "Disable" : "Enable"}
          {name}
        </button>
      </fetcher.Form>
      {!canRemove ? null : confirming ? (
        <fetcher.Form
          method="post"
          action="/tools"
          className="confirm-panel"
          role="group"
          aria-label={`${removal.label} ${tool.name}?`}
        >
          <p>{removal.question}</p>
          <input type="hidden" name="id" value={tool.id} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" name="intent" value={removal.intent} className="button small danger" disabled={busy}>
            {removal.confirmLabel}
            {name}
          </button>{" "}
          <Link
            to="/tools"
            className="button small"
            preventScrollReset
            onClick={(event) => {
              event.preventDefault();
              setDismissed(fetcher.data ?? true);
            }}
          >
            Cancel
          </Link>
        </fetcher.Form>
      ) : (
        <fetcher.Form method="post" action="/tools">
          <input type="hidden" name="id" value={tool.id} />
          <button type="submit" name="intent" value={removal.intent} className="button small danger" disabled={busy}>
            {removal.label}
            {name}
          </button>
        </fetcher.Form>
      )}
      <div aria-live="polite">
        {fetcher.state === "idle" && fetcher.data?.error ? (
          <p className="form-error" role="alert">
            {fetcher.data.error}
          </p>
        ) : null}
      </div>
    </div>
  );
}
