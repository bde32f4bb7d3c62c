import { attachmentUrl, formatBytes, type AttachmentRef, type SourcePassage } from "~/conversation/attachment-types";
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

/**
 * What a reply was given from the attached documents: each passage opens to
 * show its text. With `numbers`, only those sources (1-based, as the reply
 * cites them), keeping their numbers, each with the id `idOf` gives it so a
 * citation can link to it.
 */
export function Sources({
  passages,
  numbers,
  idOf,
}: {
  passages: readonly SourcePassage[];
  numbers?: readonly number[];
  idOf?: (n: number) => string;
}) {
  const shown = (numbers ?? passages.map((_, index) => index + 1)).flatMap((n) =>
    passages[n - 1] ? [{ n, passage: passages[n - 1] }] : [],
  );
  if (shown.length === 0) return null;
  return (
    <details className="sources">
      <summary>
        Sources <span className="sources-count">({shown.length})</span>
      </summary>
      <ol>
        {shown.map(({ n, passage }) => (
          <li key={`${passage.attachmentId}-${n}`} value={n} id={idOf?.(n) || undefined}>
            <details className="source">
              <summary>
                <span className="source-name">{passage.name}</span>, {passage.location}
              </summary>
              {/* Focusable: a long passage scrolls, and a keyboard must be able to scroll it. */}
              <blockquote className="source-text" tabIndex={0}>
                {passage.text}
              </blockquote>
            </details>
          </li>
        ))}
      </ol>
    </details>
  );
}

function FileIcon() {
  return (
    <svg className="attachment-icon" aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
      <path fill="none" stroke="currentColor" strokeWidth="1.6" d="M6 2.8h8l4.2 4.2V21.2H6zM14 2.8V7h4.2" />
    </svg>
  );
}
