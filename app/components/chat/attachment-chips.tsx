import {
  attachmentUrl,
  formatBytes,
  type AttachmentRef,
  type SourcePassage,
  type WebSource,
} from "~/conversation/attachment-types";
import type { PendingFile } from "./attachment-uploads";

/** The files waiting in the composer: name, size, progress or error, and Remove. */
export function PendingChips({ files, onRemove }: { files: readonly PendingFile[]; onRemove: (key: string) => void }) {
  if (files.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attached files">
      {files.map((file) => (
        <li key={file.key} className={`attachment-chip${file.status === "failed" ? " failed" : ""}`}>
          {file.previewUrl ? <img className="attachment-thumb" src={file.previewUrl} alt="" /> : <FileIcon />}
          <span className="attachment-text">
            <span className="attachment-name">{file.name}</span>
            <span className="attachment-meta">
              {file.status === "failed" ? (
                <span className="form-error">{file.error}</span>
              ) : file.status === "uploading" ? (
                <>
                  <progress max={1} value={file.progress} aria-label={`Uploading ${file.name}`} />{" "}
                  {formatBytes(file.size)}
                </>
              ) : (
                formatBytes(file.size)
              )}
            </span>
          </span>
          <button
            type="button"
            className="chip-button attachment-remove"
            aria-label={`Remove ${file.name}`}
            onClick={() => onRemove(file.key)}
          >
            <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The files a message was sent with: images as thumbnails, documents as chips; each downloads (its owner only). */
export function MessageAttachments({
  files,
  urlOf = attachmentUrl,
}: {
  files: readonly AttachmentRef[];
  /** Where a file is downloaded from: the owner's own route, or a share link's. */
  urlOf?: (id: string) => string;
}) {
  if (files.length === 0) return null;
  return (
    <ul className="attachment-chips sent" aria-label="Files sent">
      {files.map((file) => (
        <li key={file.id}>
          {file.kind === "image" ? (
            <a className="attachment-image" href={urlOf(file.id)} download={file.name} title={`Download ${file.name}`}>
              <img className="attachment-picture" src={urlOf(file.id)} alt={file.name} loading="lazy" />
            </a>
          ) : (
            <a className="attachment-chip" href={urlOf(file.id)} download={file.name} title={`Download ${file.name}`}>
              <FileIcon />
              <span className="attachment-text">
                <span className="attachment-name">{file.name}</span>
                <span className="attachment-meta">
                  {file.pages ? `${file.pages} page${file.pages === 1 ? "" : "s"} · ` : ""}
                  {formatBytes(file.size)}
                </span>
              </span>
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}

/** One of a reply's sources under its number: a passage of an attached document, or a page found on the web. */
export type SourceEntry = { n: number; passage: SourcePassage } | { n: number; web: WebSource };

/**
 * What a reply cites (app/components/chat/citation-links.tsx): each passage
 * opens to show its text; each page found on the web links to its address,
 * in a new tab, with its host beside it. Each keeps its number, with the id
 * `idOf` gives it so a citation can link to it.
 */
export function Sources({ entries, idOf }: { entries: readonly SourceEntry[]; idOf?: (n: number) => string }) {
  if (entries.length === 0) return null;
  return (
    <details className="sources">
      <summary>
        Sources <span className="sources-count">({entries.length})</span>
      </summary>
      <ol>
        {entries.map((entry) => (
          <li key={entry.n} value={entry.n} id={idOf?.(entry.n) || undefined}>
            {"passage" in entry ? <PassageSource passage={entry.passage} /> : <WebPageSource source={entry.web} />}
          </li>
        ))}
      </ol>
    </details>
  );
}

function PassageSource({ passage }: { passage: SourcePassage }) {
  return (
    <details className="source">
      <summary>
        <span className="source-name">{passage.name}</span>, {passage.location}
      </summary>
      {/* Focusable: a long passage scrolls, and a keyboard must be able to scroll it. */}
      <blockquote className="source-text" tabIndex={0}>
        {passage.text}
      </blockquote>
    </details>
  );
}

/** A page's title and snippet are text from the web: shown as text, never as HTML; the link names no referrer. */
function WebPageSource({ source }: { source: WebSource }) {
  return (
    <div className="source web-source">
      <a className="source-name" href={source.url} target="_blank" rel="noopener noreferrer nofollow">
        {source.title}
      </a>{" "}
      <span className="source-host">{new URL(source.url).hostname}</span>
      {source.snippet ? <p className="source-snippet">{source.snippet}</p> : null}
    </div>
  );
}

function FileIcon() {
  return (
    <svg className="attachment-icon" aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
      <path fill="none" stroke="currentColor" strokeWidth="1.6" d="M6 2.8h8l4.2 4.2V21.2H6zM14 2.8V7h4.2" />
    </svg>
  );
}
