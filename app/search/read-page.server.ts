import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { OutboundError, type OutboundFetch } from "~/net/outbound.server";

/**
 * A found page's readable text, for the model (read_page): downloaded
 * through the outbound guard the caller passes (docs/decisions/088), at most
 * PAGE_MAX_BYTES of it, only text/html and text/plain; HTML is parsed
 * (linkedom: no scripts run, nothing is fetched) and its article found with
 * Readability. What comes back is plain text, cut to PAGE_MAX_CHARS: it is
 * shown nowhere as HTML.
 */

export interface ReadablePage {
  title: string;
  /** Where the page was read, after any redirect. */
  url: string;
  text: string;
  /** Part of the page was left out (the download or the text was cut). */
  truncated: boolean;
}

export class PageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PageError";
  }
}

export const PAGE_MAX_BYTES = 2 * 1024 * 1024;
export const PAGE_MAX_CHARS = 12_000;

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

export async function readPage(
  fetch: OutboundFetch,
  address: string,
  limits: { maxBytes?: number; maxChars?: number } = {},
): Promise<ReadablePage> {
  const maxBytes = limits.maxBytes ?? PAGE_MAX_BYTES;
  const maxChars = limits.maxChars ?? PAGE_MAX_CHARS;
  let response: Response;
  try {
    response = await fetch(address, { headers: { accept: "text/html, text/plain;q=0.9" } });
  } catch (error) {
    throw asPageError(error);
  }
  const type = mediaTypeOf(response);
  if (!response.ok || !(HTML_TYPES.has(type.mediaType) || type.mediaType === "text/plain")) {
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) throw new PageError(`The page answered with an error (HTTP ${response.status}).`);
    throw new PageError(`This is not a web page or a text (${type.mediaType || "no type given"}): it was not read.`);
  }
  const body = await readCapped(response, maxBytes);
  const markup = decode(body.bytes, type.charset);
  const page = HTML_TYPES.has(type.mediaType) ? readableHtml(markup) : { title: "", text: markup };
  const text = tidy(page.text);
  return {
    title: page.title.trim() || new URL(response.url || address).hostname,
    url: response.url || address,
    text: text.slice(0, maxChars),
    truncated: body.cut || text.length > maxChars,
  };
}

function asPageError(error: unknown): PageError {
  if (error instanceof OutboundError) return new PageError(`The page could not be read: ${error.message}.`);
  return new PageError("The page could not be reached.");
}

function mediaTypeOf(response: Response): { mediaType: string; charset?: string } {
  const [mediaType = "", ...parameters] = (response.headers.get("content-type") ?? "").split(";");
  const charset = parameters
    .map((parameter) => parameter.trim().split("="))
    .find(([name]) => name.toLowerCase() === "charset")?.[1];
  return { mediaType: mediaType.trim().toLowerCase(), charset: charset?.replace(/"/g, "") };
}

/** The first `maxBytes` of the body; a page longer than that is read in part. */
async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { bytes: joined(chunks, size), cut: false };
      const room = maxBytes - size;
      chunks.push(value.length > room ? value.subarray(0, room) : value);
      size += Math.min(value.length, room);
      if (value.length >= room) {
        await reader.cancel().catch(() => undefined);
        return { bytes: joined(chunks, size), cut: true };
      }
    }
  } catch (error) {
    throw asPageError(error);
  }
}

function joined(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** The article Readability finds, or else the body's text; scripts and styles never count as text. */
function readableHtml(html: string): { title: string; text: string } {
  const { document } = parseHTML(html);
  for (const element of document.querySelectorAll("script, style, noscript, template")) element.remove();
  const title = document.querySelector("title")?.textContent ?? "";
  const article = findArticle(html);
  const found = article?.content ? blockText(parseHTML(`<html><body>${article.content}</body></html>`).document) : "";
  return { title: article?.title || title, text: found.trim() ? found : blockText(document) };
}

/** Readability's article, or null when it finds none (or fails on odd markup). */
function findArticle(html: string): { title?: string | null; content?: string | null } | null {
  try {
    // Readability changes the document it reads: it gets its own copy.
    return new Readability(parseHTML(html).document as unknown as Document).parse();
  } catch {
    return null;
  }
}

const BLOCKS =
  "p, div, section, article, header, footer, li, dt, dd, tr, h1, h2, h3, h4, h5, h6, pre, blockquote, br, hr";

/** The body's text with a line break after each block, so paragraphs and headings do not run together. */
function blockText(document: ReturnType<typeof parseHTML>["document"]): string {
  const body = document.body;
  if (!body) return "";
  for (const script of body.querySelectorAll("script, style, noscript, template")) script.remove();
  for (const block of body.querySelectorAll(BLOCKS)) block.after(document.createTextNode("\n"));
  return body.textContent ?? "";
}

/** Runs of spaces become one, blank lines at most one. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
