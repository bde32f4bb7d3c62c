import { json } from "@remix-run/node";

/**
 * Caps on request bodies, for every action and API route: a body is read
 * only up to its route's cap, whatever Content-Length claims (it may lie, and
 * a chunked body has none), so no request can make the server buffer more.
 * Beyond the cap the answer is 413 with a message that says so.
 *
 * Each cap is far above the largest valid input of the routes that use it:
 * form encoding may turn one character into up to 12 bytes (`%F0%9F%98%80`).
 */
export const BODY_LIMITS = {
  /** A button or a short form: logout, sign out everywhere, export, delete confirmation, display name, conversation rename/model/delete, catalogue switches, role changes. */
  small: 8 * 1024,
  /** An ID token (up to 8 KB) and a redirectTo: POST /api/auth/session. */
  session: 16 * 1024,
  /** A message: contact (5,000 characters), reports (2,000), custom instructions (2,000), inbox bulk actions (100 ids). A chat request's cap follows MESSAGE_MAX_CHARS (app/settings/chat-limits.ts chatBodyBytes). */
  message: 64 * 1024,
  /** A document: prompt-tool definitions (instructions up to 4,000 characters), a tool's inputs (8,000 characters together) and an answer to a tool server's form (30 fields). */
  document: 128 * 1024,
} as const;

function sizeText(bytes: number): string {
  return `${Math.round(bytes / 1024)} KB`;
}

/** 413, as JSON (the API's errors are JSON; a page's error boundary shows `error`). */
export function bodyTooLarge(max: number): Response {
  return json(
    { error: `That is too large to send: at most ${sizeText(max)} here. Please shorten it and try again.` },
    { status: 413, headers: { "Cache-Control": "no-store" } },
  );
}

/**
 * The body's bytes, or undefined once more than `max` arrive (or
 * Content-Length says more will). Past the cap nothing more is kept; the rest
 * is read and dropped while the caller answers (discardRest).
 */
export async function readCapped(request: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get("Content-Length") ?? 0) > max) {
    if (request.body) void discardRest(request.body.getReader());
    return undefined;
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void discardRest(reader);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** For an answer given before the body is read (not signed in, too fast): the body is read and dropped, as past a cap. */
export function discardBody(request: Request): void {
  if (request.body && !request.bodyUsed && !request.body.locked) void discardRest(request.body.getReader());
}

/**
 * How much of a body past its cap, or not needed, is read and dropped. Cancelling the body
 * instead destroys the connection, and a client still sending then gets a
 * reset rather than the 413 (the kernel discards the answer it had not read
 * yet). A client that sends this much more after being answered is not
 * listening: its connection is closed.
 */
const DISCARDED_AT_MOST = 64 * 1024 * 1024;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let discarded = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      discarded += value.byteLength;
      if (discarded > DISCARDED_AT_MOST) break;
    }
  } catch {
    // The client went away: nothing left to drop.
    return;
  }
  await reader.cancel().catch(() => undefined);
}

/** The body's bytes; throws a 413 Response beyond `max`. For routes that need no body, it still bounds what they accept. */
export async function requireBodyWithin(request: Request, max: number): Promise<Uint8Array> {
  const bytes = await readCapped(request, max);
  if (!bytes) throw bodyTooLarge(max);
  return bytes;
}

/** Form data (URL-encoded or multipart) from read bytes; undefined when the bytes are not a form of that type. */
export async function parseForm(bytes: Uint8Array, contentType: string): Promise<FormData | undefined> {
  try {
    return await new Response(new Uint8Array(bytes), { headers: { "Content-Type": contentType } }).formData();
  } catch {
    return undefined;
  }
}

/**
 * The body as a form, read up to `max` bytes: what `request.formData()` does
 * for a page action, but bounded, and a body that is not a form (JSON, plain
 * text, no Content-Type) is a 400, not a crash.
 */
export async function readForm(request: Request, max: number): Promise<FormData> {
  const bytes = await requireBodyWithin(request, max);
  const form = await parseForm(bytes, request.headers.get("Content-Type") ?? "");
  if (!form) {
    throw json(
      { error: "The request body could not be read as a form." },
      { status: 400, headers: { "Cache-Control": "no-store" } },
    );
  }
  return form;
}
