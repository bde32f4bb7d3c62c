/**
 * The text read out of a document (app/attachments/extract.server.ts), shared
 * with the pure chunker (app/attachments/chunks.ts) so that one imports no
 * server code.
 */

/** A run of the document's text: a PDF's page (1-based `page`), or a whole DOCX or text file. */
export interface Segment {
  text: string;
  page?: number;
}

export interface Extracted {
  /** The whole text: a PDF's pages joined by a blank line; a DOCX's or text file's text as read. */
  text: string;
  /** A PDF: one per page, empty pages included, in order. A DOCX or text file: exactly one, with no page. */
  segments: Segment[];
  /** A PDF's page count. */
  pages?: number;
}
