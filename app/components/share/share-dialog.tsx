import { useEffect, useState, type FormEvent } from "react";
import { CopyButton } from "~/components/chat/copy-button";
import { Dialog } from "~/components/chat/dialog";

/** Kept in step with SHARE_DISPLAY_NAME_MAX on the server (which checks it; this only stops typing past it). */
const DISPLAY_NAME_MAX = 80;

interface Link {
  id: string;
  path: string;
  displayName: string | null;
  /** The conversation's attached files can be opened through the link. */
  includeFiles?: boolean;
}

type State =
  | { kind: "loading" }
  | { kind: "ready"; link: Link | null }
  | { kind: "busy"; link: Link | null }
  | { kind: "failed"; link: Link | null; message: string };

async function errorOf(response: Response, fallback: string): Promise<string> {
  const body = (await response.json().catch(() => null)) as {
    error?: string;
  } | null;
  return body?.error ?? fallback;
}

const post = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: new URLSearchParams(fields),
  });

/** Loaded on first use of "Share" (share-button.tsx), so the assistant page does not carry it. */
export function ShareDialog({ conversationId, onClose }: { conversationId: string; onClose: () => void }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [displayName, setDisplayName] = useState("");
  const [includeFiles, setIncludeFiles] = useState(false);
  const endpoint = `/api/conversations/${conversationId}/share`;

  useEffect(() => {
    let live = true;
    fetch(endpoint, { headers: { Accept: "application/json" } })
      .then(async (response) => {
        if (!response.ok) throw new Error(await errorOf(response, "The link couldn't be loaded."));
        const { shares } = (await response.json()) as { shares: Link[] };
        if (live) setState({ kind: "ready", link: shares[0] ?? null });
      })
      .catch((error: unknown) => {
        if (live)
          setState({
            kind: "failed",
            link: null,
            message: error instanceof Error ? error.message : "The link couldn't be loaded.",
          });
      });
    return () => {
      live = false;
    };
  }, [endpoint]);

  const link = state.kind === "loading" ? null : state.link;

  async function create(event: FormEvent) {
    event.preventDefault();
    setState({ kind: "busy", link: null });
    try {
      const response = await post(endpoint, {
        intent: "create",
        displayName,
        ...(includeFiles ? { includeFiles: "on" } : {}),
      });
      if (response.status !== 201) {
        // The name stays in the field: only the message is new.
        setState({
          kind: "failed",
          link: null,
          message: await errorOf(response, "The link couldn't be created. Please try again."),
        });
        return;
      }
      const { share } = (await response.json()) as { share: Link };
      setState({ kind: "ready", link: share });
    } catch {
      setState({
        kind: "failed",
        link: null,
        message: "The connection was lost. Please try again.",
      });
    }
  }

  async function revoke(current: Link) {
    setState({ kind: "busy", link: current });
    try {
      const response = await post(`/api/shares/${current.id}`, {
        intent: "revoke",
      });
      if (!response.ok) {
        setState({
          kind: "failed",
          link: current,
          message: await errorOf(response, "The link couldn't be revoked. Please try again."),
        });
        return;
      }
      setState({ kind: "ready", link: null });
    } catch {
      setState({
        kind: "failed",
        link: current,
        message: "The connection was lost. Please try again.",
      });
    }
  }

  const url =
    link && typeof window !== "undefined" ? new URL(link.path, window.location.origin).href : (link?.path ?? "");

  return (
    <Dialog open onClose={onClose} title="Share this conversation">
      {state.kind === "loading" ? (
        <p role="status">Loading…</p>
      ) : link ? (
        <div className="dialog-form">
          <p className="fine-print">
            Anyone with this link can read the conversation as it was when you shared it
            {link.displayName ? <>, shown as shared by {link.displayName}</> : null}
            {link.includeFiles ? ", with the files attached in it" : ""}. Revoke it to stop that at once.
          </p>
          <label>
            Link
            <input className="share-link" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
          </label>
          <label className="share-files">
            <input type="checkbox" checked={includeFiles} onChange={(event) => setIncludeFiles(event.target.checked)} />
            Include attached files (anyone with the link can open them, and the passages replies quoted from them)
          </label>
          {state.kind === "failed" ? (
            <p className="form-error" role="alert">
              {state.message}
            </p>
          ) : null}
          <div className="dialog-actions">
            <CopyButton text={url} label="Copy link" />
            <button type="button" className="button" disabled={state.kind === "busy"} onClick={() => void revoke(link)}>
              Revoke
            </button>
            <button type="button" className="button primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form className="dialog-form" onSubmit={create}>
          <p className="fine-print">
            Makes a read-only copy of the messages so far that anyone with the link can open, without logging in.
            Nothing else of yours is shown.
          </p>
          <label>
            Show my name as (optional)
            <input
              className="share-name"
              value={displayName}
              maxLength={DISPLAY_NAME_MAX}
              autoComplete="off"
              onChange={(event) => setDisplayName(event.target.value)}
            />
          </label>
          {state.kind === "failed" ? (
            <p className="form-error" role="alert">
              {state.message}
            </p>
          ) : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={state.kind === "busy"}>
              {state.kind === "busy" ? "Creating…" : "Create link"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
