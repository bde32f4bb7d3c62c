import { Link } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";

/** The latest import as GET /api/imports answers it (app/data/import/import-jobs.server.ts ImportView). */
export interface ImportProgress {
  id: string;
  source: "chatgpt" | "claude" | "nuvara";
  fileName: string;
  status: "queued" | "running" | "done" | "stopped" | "failed";
  total: number;
  imported: number;
  skipped: number;
  message: string | null;
  skippedItems: Array<{ title: string; reason: string }>;
}

const SOURCE_NAMES = { chatgpt: "ChatGPT", claude: "Claude.ai", nuvara: "a Nuvara² export" } as const;
const POLL_MS = 1000;
const count = (n: number) => n.toLocaleString("en-US");
const conversationsWord = (n: number) => `${count(n)} conversation${n === 1 ? "" : "s"}`;

/** Import chats from a ChatGPT or Claude.ai export, or this app's own (docs/decisions/104). */
export function ImportChats({ initial }: { initial: ImportProgress | null }) {
  const [progress, setProgress] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const unfinished = progress?.status === "queued" || progress?.status === "running";

  // While an import runs, its progress is read every second (the page stays usable meanwhile).
  useEffect(() => {
    if (!unfinished) return;
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const response = await fetch("/api/imports", { headers: { Accept: "application/json" } });
        if (!response.ok || stopped) return;
        const body = (await response.json()) as { import: ImportProgress | null };
        if (!stopped) setProgress(body.import);
      } catch {
        // A missed read is retried on the next tick.
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [unfinished]);

  async function upload(event: React.FormEvent) {
    event.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) {
      setError("Choose the export file first.");
      return;
    }
    setSending(true);
    setError(null);
    try {
      const response = await fetch("/api/imports", {
        method: "POST",
        headers: { "X-File-Name": encodeURIComponent(file.name), "Content-Type": "application/octet-stream" },
        body: file,
      });
      const body = (await response.json().catch(() => ({}))) as {
        error?: string;
        import?: { id: string; total: number };
      };
      if (!response.ok || !body.import) {
        setError(body.error ?? "The file could not be uploaded. Please try again.");
        return;
      }
      setProgress({
        id: body.import.id,
        source: "chatgpt",
        fileName: file.name,
        status: "queued",
        total: body.import.total,
        imported: 0,
        skipped: 0,
        message: null,
        skippedItems: [],
      });
      if (input.current) input.current.value = "";
    } catch {
      setError("The file could not be uploaded. Please check your connection and try again.");
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="import-chats">
      <p>
        Bring your history from ChatGPT or Claude.ai: upload their data export (the .zip, or its conversations.json), or
        a file from “Download my data”. Each chat keeps its title, dates, messages and branches. Up to 100 MB.
      </p>
      <form onSubmit={upload} className="import-form">
        <label htmlFor="import-file">Export file</label>
        <input
          id="import-file"
          ref={input}
          type="file"
          accept=".zip,.json,application/zip,application/json"
          disabled={sending || unfinished}
        />
        <button type="submit" className="button" disabled={sending || unfinished}>
          {sending ? "Uploading…" : "Import chats"}
        </button>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div aria-live="polite">{progress ? <ImportState progress={progress} /> : null}</div>
    </div>
  );
}

function ImportState({ progress }: { progress: ImportProgress }) {
  const handled = progress.imported + progress.skipped;
  if (progress.status === "queued" || progress.status === "running")
    return (
      <div className="import-state">
        <p>
          Importing {progress.fileName}: {count(handled)} of {conversationsWord(progress.total)}…
        </p>
        <progress max={progress.total} value={handled} aria-label="Import progress" />
      </div>
    );
  return (
    <div className="import-state">
      <p className={progress.status === "done" ? "form-notice" : "form-error"}>{summary(progress)}</p>
      {progress.skippedItems.length > 0 ? (
        <ul className="import-skipped" aria-label="Conversations skipped">
          {progress.skippedItems.map((item, index) => (
            <li key={index}>
              “{item.title}”: {item.reason}
            </li>
          ))}
          {progress.skipped > progress.skippedItems.length ? (
            <li>and {count(progress.skipped - progress.skippedItems.length)} more</li>
          ) : null}
        </ul>
      ) : null}
      {progress.imported > 0 ? (
        <p>
          <Link to="/nuvara">Open your chats</Link>
        </p>
      ) : null}
    </div>
  );
}

function summary(progress: ImportProgress): string {
  const from = SOURCE_NAMES[progress.source];
  const skipped =
    progress.skipped > 0 ? `; ${count(progress.skipped)} skipped${progress.skippedItems.length ? ":" : "."}` : ".";
  if (progress.status === "done") return `Imported ${conversationsWord(progress.imported)} from ${from}${skipped}`;
  return progress.message ?? `The import stopped after ${conversationsWord(progress.imported)}.`;
}
