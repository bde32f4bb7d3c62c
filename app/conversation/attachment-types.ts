/**
 * What the browser and the server say about attachments (docs/decisions/071).
 * No server imports: the chat page bundles this.
 */

export type AttachmentKind = "image" | "pdf" | "docx" | "text";

/** An attachment as a message's part names it (`data-attachment`) and the upload answers it. */
export interface AttachmentRef {
  id: string;
  name: string;
  kind: AttachmentKind;
  mediaType: string;
  size: number;
  pages?: number | null;
}

/** A passage a reply was given to answer from (`data-sources`), so the user can check the answer. */
export interface SourcePassage {
  attachmentId: string;
  name: string;
  /** "p. 3", "pp. 3–4", "lines 10–42", or "whole document". */
  location: string;
  text: string;
}

/**
 * A page a web search found (or read_page read), listed with a reply's Sources
 * (docs/decisions/088). Its number is the one the model cites: numbers go on
 * after the reply's document passages, so a page keeps its number wherever
 * the passages are left out (a share without files).
 */
export interface WebSource {
  number: number;
  title: string;
  /** An http(s) address; a Source links to it. */
  url: string;
  snippet: string;
}

/** A reply's `data-sources` part: the passages it was given, then the pages its tools found. */
export interface ReplySources {
  passages: SourcePassage[];
  web?: WebSource[];
}

/** Where a file is downloaded from (its owner only). */
export function attachmentUrl(id: string): string {
  return `/api/attachments/${id}`;
}

const MB = 1024 * 1024;

/** "1.4 MB", "820 KB", "12 bytes": sizes as people read them. */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${(bytes / MB).toFixed(bytes >= 10 * MB ? 0 : 1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} byte${bytes === 1 ? "" : "s"}`;
}
