import { z } from "zod";
import type { SearchSettings } from "~/config.server";
import { OutboundError, type OutboundFetch } from "~/net/outbound.server";

/**
 * The web search providers (SEARCH_PROVIDER, docs/configuration.md): a
 * SearXNG instance's JSON API, or the Brave Search API. Both are asked
 * through the outbound guard the caller passes (docs/decisions/088). Every
 * failure — refused, unreachable, slow, an error status, an answer that
 * cannot be read — is a SearchError with a message fit for the model.
 */

/** One result, as the model and the reply's Sources get it. */
export interface FoundPage {
  title: string;
  url: string;
  snippet: string;
}

export class SearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SearchError";
  }
}

/** A search engine's answer is small; anything larger is not one. */
export const SEARCH_ANSWER_MAX_BYTES = 1024 * 1024;
const TITLE_MAX_CHARS = 200;
const SNIPPET_MAX_CHARS = 500;
export const QUERY_MAX_CHARS = 400;

const searxngAnswer = z.object({
  results: z.array(z.object({ title: z.string().catch(""), url: z.unknown(), content: z.string().catch("") }).loose()),
});

const braveAnswer = z.object({
  web: z
    .object({
      results: z.array(
        z.object({ title: z.string().catch(""), url: z.unknown(), description: z.string().catch("") }).loose(),
      ),
    })
    .optional(),
});

export async function searchWeb(fetch: OutboundFetch, settings: SearchSettings, query: string): Promise<FoundPage[]> {
  const asked = query.trim().slice(0, QUERY_MAX_CHARS);
  if (!asked) throw new SearchError("The search needs some words to look for.");
  return settings.provider === "brave" ? searchBrave(fetch, settings, asked) : searchSearxng(fetch, settings, asked);
}

async function searchSearxng(fetch: OutboundFetch, settings: SearchSettings, query: string): Promise<FoundPage[]> {
  const url = new URL(`${settings.url}/search`);
  url.search = new URLSearchParams({ q: query, format: "json" }).toString();
  const answer = searxngAnswer.safeParse(await askJson(fetch, url, { accept: "application/json" }));
  if (!answer.success) throw unreadable();
  return pagesFrom(
    answer.data.results.map((result) => ({
      title: plainText(result.title),
      url: result.url,
      snippet: plainText(result.content),
    })),
    settings.results,
  );
}

async function searchBrave(fetch: OutboundFetch, settings: SearchSettings, query: string): Promise<FoundPage[]> {
  const url = new URL(`${settings.url}/res/v1/web/search`);
  url.search = new URLSearchParams({ q: query, count: String(settings.results) }).toString();
  const answer = braveAnswer.safeParse(
    await askJson(fetch, url, { accept: "application/json", "x-subscription-token": settings.apiKey ?? "" }),
  );
  if (!answer.success) throw unreadable();
  return pagesFrom(
    (answer.data.web?.results ?? []).map((result) => ({
      title: plainText(result.title),
      url: result.url,
      snippet: plainText(result.description),
    })),
    settings.results,
  );
}

async function askJson(fetch: OutboundFetch, url: URL, headers: Record<string, string>): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers });
  } catch (error) {
    throw asSearchError(error);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new SearchError(`The search engine answered with an error (HTTP ${response.status}).`);
  }
  try {
    return await response.json();
  } catch (error) {
    throw error instanceof OutboundError ? asSearchError(error) : unreadable();
  }
}

function asSearchError(error: unknown): SearchError {
  if (error instanceof OutboundError) return new SearchError(`The search engine could not be asked: ${error.message}.`);
  return new SearchError("The search engine could not be reached.");
}

function unreadable(): SearchError {
  return new SearchError("The search engine's answer could not be read.");
}

/** Only http(s) addresses, each once, the first `count`; titles and snippets cut to a line's worth. */
function pagesFrom(results: Array<{ title: string; url: unknown; snippet: string }>, count: number): FoundPage[] {
  const seen = new Set<string>();
  const pages: FoundPage[] = [];
  for (const result of results) {
    const url = webAddress(result.url);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    pages.push({
      title: cut(result.title.trim() || new URL(url).hostname, TITLE_MAX_CHARS),
      url,
      snippet: cut(result.snippet.trim(), SNIPPET_MAX_CHARS),
    });
    if (pages.length === count) break;
  }
  return pages;
}

/** The address when it is an http(s) one: a result may carry anything, and a Source links to it. */
export function webAddress(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Engines mark the matched words (<strong>) and escape characters: the text without its tags, its entities read. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
      if (entity.startsWith("#x") || entity.startsWith("#X"))
        return safeCodePoint(parseInt(entity.slice(2), 16), whole);
      if (entity.startsWith("#")) return safeCodePoint(Number(entity.slice(1)), whole);
      return ENTITIES[entity.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, " ")
    .trim();
}

function safeCodePoint(code: number, fallback: string): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}
